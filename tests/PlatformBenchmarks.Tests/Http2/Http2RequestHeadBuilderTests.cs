using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.Http2;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// A decoded header block becomes the engine's request head, the same layout HTTP/1.1's parser fills, and a block
/// RFC 9113 §8.2-§8.3 calls malformed is refused with its reason, whatever comes after the problem.
/// </summary>
public class Http2RequestHeadBuilderTests
{
    [Fact]
    public void ARequestBecomesARequestLineAndFieldLines()
    {
        Http2RequestHeadBuilder builder = Build(":method: GET", ":scheme: https", ":authority: example.com", ":path: /queries?queries=20", "accept: */*", "user-agent: h2load");

        Assert.Equal(Http2HeadError.None, builder.Error);
        Assert.Equal("GET /queries?queries=20 HTTP/2\r\nhost: example.com\r\naccept: */*\r\nuser-agent: h2load\r\n\r\n", Encoding.Latin1.GetString(builder.HeadBytes));
        var request = new HttpRequest(builder.HeadBytes, in builder.Head);
        Assert.Equal(HttpMethod.Get, request.Method);
        Assert.Equal(PlatformBenchmarks.Http.HttpVersion.Http2, request.Version);
        Assert.Equal("/queries", Encoding.Latin1.GetString(request.Path));
        Assert.Equal("queries=20", Encoding.Latin1.GetString(request.Query));
        Assert.Equal("GET", Encoding.Latin1.GetString(request.MethodToken));
        var fields = new List<string>();
        foreach (HttpRequest.Field field in request.Fields)
        {
            fields.Add($"{Encoding.Latin1.GetString(field.Name)}={Encoding.Latin1.GetString(field.Value)}");
        }

        Assert.Equal(["host=example.com", "accept=*/*", "user-agent=h2load"], fields);
        Assert.Equal(3, builder.Head.HeaderCount);
    }

    [Fact]
    public void ABlockDecodedByHpackBuildsTheSameHead()
    {
        // C.4's requests, names by static and dynamic index, through the decoder into the builder; the last one kept.
        var decoder = new HpackDecoder(4096, 16 * 1024);
        var builder = new Http2RequestHeadBuilder();
        foreach (string block in new[] { "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", "8286 84be 5886 a8eb 1064 9cbf", "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf" })
        {
            builder.Start(100);
            Http2RequestHeadBuilder.FieldSink sink = builder.Sink;
            Assert.Equal(HpackError.None, decoder.Decode(Hpack.Hex(block), endHeaders: true, ref sink));
            Assert.Equal(Http2HeadError.None, builder.Complete());
        }

        Assert.Equal("GET /index.html HTTP/2\r\nhost: www.example.com\r\ncustom-key: custom-value\r\n\r\n", Encoding.Latin1.GetString(builder.HeadBytes));
    }

    [Fact]
    public void AHeadWithoutRegularFieldsEndsAfterItsRequestLine()
    {
        Http2RequestHeadBuilder builder = Build(":method: POST", ":scheme: http", ":path: /echo");

        Assert.Equal("POST /echo HTTP/2\r\n\r\n", Encoding.Latin1.GetString(builder.HeadBytes));
        Assert.Equal(HttpMethod.Post, builder.Head.Method);
        Assert.Equal(-1, builder.Head.QueryStart);
    }

    [Fact]
    public void AHostThatMatchesTheAuthorityIsWrittenOnce()
    {
        Http2RequestHeadBuilder builder = Build(":method: GET", ":scheme: http", ":authority: a.example", ":path: /", "host: a.example");

        Assert.Equal("GET / HTTP/2\r\nhost: a.example\r\n\r\n", Encoding.Latin1.GetString(builder.HeadBytes));
    }

    [Fact]
    public void AHostWithoutAnAuthorityIsKept()
    {
        Http2RequestHeadBuilder builder = Build(":method: GET", ":scheme: http", ":path: /", "host: b.example");

        Assert.Equal("GET / HTTP/2\r\nhost: b.example\r\n\r\n", Encoding.Latin1.GetString(builder.HeadBytes));
    }

    [Theory]
    [InlineData("12", 12L)]
    [InlineData("0", 0L)]
    public void AContentLengthIsRead(string value, long length)
    {
        Http2RequestHeadBuilder builder = Build(":method: POST", ":scheme: http", ":path: /", $"content-length: {value}", $"content-length: {value}");

        Assert.Equal(Http2HeadError.None, builder.Error);
        Assert.True(builder.HasContentLength);
        Assert.Equal(length, builder.Head.ContentLength);
    }

    [Theory]
    [InlineData(":method: OPTIONS|:scheme: http|:path: *", "OPTIONS * HTTP/2\r\n\r\n")]
    [InlineData(":method: CONNECT|:authority: proxy.example:443", "CONNECT proxy.example:443 HTTP/2\r\nhost: proxy.example:443\r\n\r\n")]
    [InlineData(":method: PURGE|:scheme: http|:path: /a", "PURGE /a HTTP/2\r\n\r\n")]
    [InlineData(":method: GET|:scheme: http|:path: /|te: trailers|x-empty: ", "GET / HTTP/2\r\nte: trailers\r\nx-empty: \r\n\r\n")]
    [InlineData(":method: GET|:scheme: http|:path: /|cookie: a=1|cookie: b=2", "GET / HTTP/2\r\ncookie: a=1\r\ncookie: b=2\r\n\r\n")]
    public void OtherValidShapesAreAccepted(string fields, string head)
    {
        Http2RequestHeadBuilder builder = Build(fields.Split('|'));

        Assert.Equal(Http2HeadError.None, builder.Error);
        Assert.Equal(head, Encoding.Latin1.GetString(builder.HeadBytes));
    }

    /// <summary>Malformed requests (RFC 9113 §8.1.1), each with its reason; the fields are joined by '|'.</summary>
    public static TheoryData<string, string> MalformedRequests() => new()
    {
        { ":method: GET|:scheme: http|:path: /|Accept: */*", nameof(Http2HeadError.InvalidFieldName) },
        { ":method: GET|:scheme: http|:path: /|x y: 1", nameof(Http2HeadError.InvalidFieldName) },
        { ":method: GET|:scheme: http|:path: /|x:y: 1", nameof(Http2HeadError.InvalidFieldName) },
        { ":method: GET|:scheme: http|:path: /|accept:  */*", nameof(Http2HeadError.InvalidFieldValue) },
        { ":method: GET|:scheme: http|:path: /|accept: */* ", nameof(Http2HeadError.InvalidFieldValue) },
        { ":method: GET|:scheme: http|:path: /|accept: a\nb", nameof(Http2HeadError.InvalidFieldValue) },
        { ":method: GET|:scheme: http|:path: /|accept: a\0b", nameof(Http2HeadError.InvalidFieldValue) },
        { ":method: GET|:scheme: http|:path: /a\rb", nameof(Http2HeadError.InvalidFieldValue) },
        { ":method: GET|:scheme: http|:path: /|connection: keep-alive", nameof(Http2HeadError.ConnectionSpecificField) },
        { ":method: GET|:scheme: http|:path: /|keep-alive: 5", nameof(Http2HeadError.ConnectionSpecificField) },
        { ":method: GET|:scheme: http|:path: /|proxy-connection: close", nameof(Http2HeadError.ConnectionSpecificField) },
        { ":method: GET|:scheme: http|:path: /|transfer-encoding: chunked", nameof(Http2HeadError.ConnectionSpecificField) },
        { ":method: GET|:scheme: http|:path: /|upgrade: websocket", nameof(Http2HeadError.ConnectionSpecificField) },
        { ":method: GET|:scheme: http|:path: /|te: gzip", nameof(Http2HeadError.InvalidTe) },
        { ":method: GET|:scheme: http|:path: /|:foo: bar", nameof(Http2HeadError.UnknownPseudoHeader) },
        { ":status: 200|:method: GET|:scheme: http|:path: /", nameof(Http2HeadError.UnknownPseudoHeader) },
        { ":method: GET|:scheme: http|x: 1|:path: /", nameof(Http2HeadError.MissingPseudoHeader) },
        { ":method: GET|:scheme: http|:path: /|x: 1|:authority: a", nameof(Http2HeadError.PseudoHeaderAfterField) },
        { ":method: GET|:method: GET|:scheme: http|:path: /", nameof(Http2HeadError.DuplicatePseudoHeader) },
        { ":method: GET|:scheme: http|:path: /|:path: /", nameof(Http2HeadError.DuplicatePseudoHeader) },
        { ":scheme: http|:path: /", nameof(Http2HeadError.MissingPseudoHeader) },
        { ":method: GET|:path: /", nameof(Http2HeadError.MissingPseudoHeader) },
        { ":method: GET|:scheme: http", nameof(Http2HeadError.MissingPseudoHeader) },
        { ":method: CONNECT|:scheme: http|:authority: a:1|:path: /", nameof(Http2HeadError.MissingPseudoHeader) },
        { ":method: CONNECT", nameof(Http2HeadError.MissingPseudoHeader) },
        { ":method: G T|:scheme: http|:path: /", nameof(Http2HeadError.InvalidMethod) },
        { ":method: |:scheme: http|:path: /", nameof(Http2HeadError.InvalidMethod) },
        { ":method: GET|:scheme: 1http|:path: /", nameof(Http2HeadError.InvalidScheme) },
        { ":method: GET|:scheme: ht tp|:path: /", nameof(Http2HeadError.InvalidScheme) },
        { ":method: GET|:scheme: http|:path: ", nameof(Http2HeadError.InvalidPath) },
        { ":method: GET|:scheme: http|:path: a/b", nameof(Http2HeadError.InvalidPath) },
        { ":method: GET|:scheme: http|:path: *", nameof(Http2HeadError.InvalidPath) },
        { ":method: GET|:scheme: http|:path: /a#b", nameof(Http2HeadError.InvalidPath) },
        { ":method: GET|:scheme: http|:path: /a b", nameof(Http2HeadError.InvalidPath) },
        { ":method: GET|:scheme: http|:authority: user@host|:path: /", nameof(Http2HeadError.InvalidAuthority) },
        { ":method: GET|:scheme: http|:authority: a.example|:path: /|host: b.example", nameof(Http2HeadError.InvalidAuthority) },
        { ":method: POST|:scheme: http|:path: /|content-length: 1x", nameof(Http2HeadError.InvalidContentLength) },
        { ":method: POST|:scheme: http|:path: /|content-length: ", nameof(Http2HeadError.InvalidContentLength) },
        { ":method: POST|:scheme: http|:path: /|content-length: -1", nameof(Http2HeadError.InvalidContentLength) },
        { ":method: POST|:scheme: http|:path: /|content-length: 1|content-length: 2", nameof(Http2HeadError.InvalidContentLength) },
        { ":method: POST|:scheme: http|:path: /|content-length: 99999999999999999999", nameof(Http2HeadError.InvalidContentLength) },
        { ":method: GET|:scheme: http|:authority: a|:path: /|b: 1|c: 1|d: 1", nameof(Http2HeadError.TooManyFields) },
    };

    [Theory]
    [MemberData(nameof(MalformedRequests))]
    public void AMalformedRequestIsRefusedWithItsReason(string fields, string error)
    {
        Http2RequestHeadBuilder builder = Build(3, fields.Split('|'));

        Assert.Equal(Enum.Parse<Http2HeadError>(error), builder.Error);
    }

    [Fact]
    public void TheFirstProblemIsKeptAndTheBuilderIsReusable()
    {
        Http2RequestHeadBuilder builder = Build(":method: GET", ":scheme: http", ":path: /", "Bad: 1", "connection: close");
        Assert.Equal(Http2HeadError.InvalidFieldName, builder.Error);

        builder.Start(100);
        OnFields(builder, [":method: GET", ":scheme: http", ":path: /ok"]);
        Assert.Equal(Http2HeadError.None, builder.Complete());
        Assert.Equal("GET /ok HTTP/2\r\n\r\n", Encoding.Latin1.GetString(builder.HeadBytes));
    }

    private static Http2RequestHeadBuilder Build(params string[] fields) => Build(100, fields);

    private static Http2RequestHeadBuilder Build(int maxFieldCount, string[] fields)
    {
        var builder = new Http2RequestHeadBuilder();
        builder.Start(maxFieldCount);
        OnFields(builder, fields);
        builder.Complete();
        return builder;
    }

    private static void OnFields(Http2RequestHeadBuilder builder, string[] fields)
    {
        foreach (string field in fields)
        {
            int colon = field.IndexOf(": ", 1, StringComparison.Ordinal);
            byte[] name = Encoding.Latin1.GetBytes(colon < 0 ? field : field[..colon]);
            byte[] value = Encoding.Latin1.GetBytes(colon < 0 ? "" : field[(colon + 2)..]);
            builder.OnField(0, name, value, neverIndexed: false);
        }
    }
}
