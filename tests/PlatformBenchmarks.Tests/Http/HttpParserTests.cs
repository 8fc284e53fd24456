using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

public class HttpParserTests
{
    private static readonly byte[] s_plaintext = Requests.Bytes(Requests.Plaintext);
    private static readonly byte[] s_json = Requests.Bytes(Requests.Json);

    public static TheoryData<string, int> TruncationPoints()
    {
        var data = new TheoryData<string, int>();
        foreach ((string name, byte[] request) in new[] { ("plaintext", s_plaintext), ("json", s_json) })
        {
            for (int i = 0; i < request.Length; i++)
            {
                data.Add(name, i);
            }
        }

        return data;
    }

    private static byte[] Fixture(string name) => name == "plaintext" ? s_plaintext : s_json;

    private sealed record Parsed(ParseStatus Status, RequestRejection Rejection, int Consumed, HttpMethod Method, HttpVersion Version, string Path, string Query, bool KeepAlive, int HeaderCount);

    private static Parsed Parse(in ReadOnlySequence<byte> buffer, HttpLimits? limits = null)
    {
        var parser = new HttpParser(limits ?? new HttpLimits());
        ParseStatus status = parser.TryParseHead(buffer, out RequestHead head, out ReadOnlySpan<byte> bytes, out int consumed, out RequestRejection rejection);
        if (status != ParseStatus.Complete)
        {
            return new Parsed(status, rejection, consumed, default, default, "", "", false, 0);
        }

        var request = new HttpRequest(bytes, in head);
        return new Parsed(status, rejection, consumed, request.Method, request.Version, Requests.Text(request.Path), Requests.Text(request.Query), request.KeepAlive, head.HeaderCount);
    }

    private static Parsed Parse(string request, HttpLimits? limits = null) => Parse(new ReadOnlySequence<byte>(Requests.Bytes(request)), limits);

    [Theory]
    [InlineData(new byte[] { 0x16 })]                         // a TLS record header, alone
    [InlineData(new byte[] { 0x16, 0x03, 0x01, 0x02, 0x00 })] // the start of a ClientHello
    [InlineData(new byte[] { 0x0d, 0x0a, 0x16 })]             // after an empty line, which is ignored
    [InlineData(new byte[] { (byte)' ', (byte)'G' })]         // leading whitespace is not an empty line
    [InlineData(new byte[] { 0x00 })]
    [InlineData(new byte[] { 0x80, (byte)'G' })]
    [InlineData(new byte[] { (byte)'\r', (byte)'X' })]        // a bare CR
    public void AFirstByteThatCannotStartARequestIsRefusedBeforeTheLineEnds(byte[] start)
    {
        Parsed parsed = Parse(new ReadOnlySequence<byte>(start));

        Assert.Equal(ParseStatus.Rejected, parsed.Status);
        Assert.Equal(RequestRejection.InvalidMethod, parsed.Rejection);
    }

    [Theory]
    [InlineData("G")]
    [InlineData("\r\n\r\nGE")]
    [InlineData("PATCH")]
    [InlineData("M-SEARCH *")]
    public void AnUnfinishedLineThatStartsWithATokenCharacterWaitsForMore(string start)
    {
        Assert.Equal(ParseStatus.Incomplete, Parse(start).Status);
    }

    [Theory]
    [MemberData(nameof(TruncationPoints))]
    public void TfbRequestTruncatedAtAnyByteIsIncomplete(string fixture, int length)
    {
        byte[] request = Fixture(fixture);
        Parsed parsed = Parse(new ReadOnlySequence<byte>(request, 0, length));

        Assert.Equal(ParseStatus.Incomplete, parsed.Status);
        Assert.Equal(RequestRejection.None, parsed.Rejection);
    }

    [Theory]
    [MemberData(nameof(TruncationPoints))]
    public void TfbRequestSplitIntoTwoSegmentsAtAnyByteParsesLikeOnePiece(string fixture, int point)
    {
        byte[] request = Fixture(fixture);
        Parsed whole = Parse(new ReadOnlySequence<byte>(request));
        Parsed split = Parse(Sequences.Split(request, point));

        Assert.Equal(ParseStatus.Complete, whole.Status);
        Assert.Equal(whole, split);
    }

    [Fact]
    public void TfbPlaintextRequestParsesToItsParts()
    {
        Parsed parsed = Parse(Requests.Plaintext);

        Assert.Equal(ParseStatus.Complete, parsed.Status);
        Assert.Equal(HttpMethod.Get, parsed.Method);
        Assert.Equal(HttpVersion.Http11, parsed.Version);
        Assert.Equal("/plaintext", parsed.Path);
        Assert.Equal("", parsed.Query);
        Assert.True(parsed.KeepAlive);
        Assert.Equal(3, parsed.HeaderCount);
        Assert.Equal(s_plaintext.Length, parsed.Consumed);
    }

    [Fact]
    public void AHeadInTheFirstSegmentIsParsedInPlaceWithoutACopy()
    {
        var parser = new HttpParser(new HttpLimits());
        ParseStatus status = parser.TryParseHead(new ReadOnlySequence<byte>(s_plaintext), out _, out ReadOnlySpan<byte> headBytes, out _, out _);

        Assert.Equal(ParseStatus.Complete, status);
        Assert.True(Unsafe.AreSame(ref MemoryMarshal.GetReference(headBytes), ref s_plaintext[0]));
        Assert.Equal(s_plaintext.Length, headBytes.Length);
    }

    [Fact]
    public void RequestSpreadOverEverySingleByteSegmentParsesLikeOnePiece()
    {
        int[] everyByte = Enumerable.Range(1, s_json.Length - 1).ToArray();

        Assert.Equal(Parse(new ReadOnlySequence<byte>(s_json)), Parse(Sequences.Split(s_json, everyByte)));
    }

    [Fact]
    public void PipelinedRequestsParseOneHeadAtATime()
    {
        byte[] batch = Requests.Bytes(Requests.Plaintext + Requests.Json);
        var parser = new HttpParser(new HttpLimits());
        var buffer = new ReadOnlySequence<byte>(batch);

        Assert.Equal(ParseStatus.Complete, parser.TryParseHead(buffer, out _, out _, out int first, out _));
        Assert.Equal(s_plaintext.Length, first);
        buffer = buffer.Slice(first);
        Assert.Equal(ParseStatus.Complete, parser.TryParseHead(buffer, out RequestHead head, out ReadOnlySpan<byte> bytes, out int second, out _));
        Assert.Equal("/json", Requests.Text(new HttpRequest(bytes, in head).Path));
        Assert.Equal(s_json.Length, second);
    }

    [Theory]
    [InlineData("GET /queries?queries=20 HTTP/1.1\r\nHost: a\r\n\r\n", "/queries", "queries=20")]
    [InlineData("GET /queries? HTTP/1.1\r\nHost: a\r\n\r\n", "/queries", "")]
    [InlineData("GET http://tfb-server:8080/json?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", "/json", "x=1")]
    [InlineData("GET http://tfb-server HTTP/1.1\r\nHost: a\r\n\r\n", "", "")]
    [InlineData("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", "*", "")]
    public void TargetSplitsIntoPathAndQuery(string request, string path, string query)
    {
        Parsed parsed = Parse(request);

        Assert.Equal(ParseStatus.Complete, parsed.Status);
        Assert.Equal(path, parsed.Path);
        Assert.Equal(query, parsed.Query);
    }

    [Theory]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true)]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.0\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true)]
    [InlineData("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: a\r\n\r\n", true)]
    [InlineData("GET / HTTP/1.0\r\nConnection: KEEP-ALIVE\r\n\r\n", true)]
    [InlineData("GET / HTTP/1.0\r\nConnection:keep-alive \r\n\r\n", true)]
    [InlineData("GET / HTTP/1.0\r\nConnection: keep-alivE, close\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.0\r\nConnection: keep-alive2\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.0\r\nConnection: keep_alive\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.0\r\nConnectio_: keep-alive\r\n\r\n", false)]
    public void PersistenceFollowsVersionAndConnectionHeader(string request, bool keepAlive)
    {
        Parsed parsed = Parse(request);

        Assert.Equal(ParseStatus.Complete, parsed.Status);
        Assert.Equal(keepAlive, parsed.KeepAlive);
    }

    [Theory]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n", true)]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nuPGRADE:h2c\r\n\r\n", true)]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nUpgrade-Insecure-Requests: 1\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n\r\n", false)]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nX-Upgrade: websocket\r\n\r\n", false)]
    public void AnUpgradeRequestIsOneWithAnUpgradeField(string text, bool upgrade)
    {
        var parser = new HttpParser(new HttpLimits());
        ParseStatus status = parser.TryParseHead(new ReadOnlySequence<byte>(Requests.Bytes(text)), out RequestHead head, out ReadOnlySpan<byte> bytes, out _, out _);

        Assert.Equal(ParseStatus.Complete, status);
        Assert.Equal(upgrade, new HttpRequest(bytes, in head).IsUpgradeRequest);
    }

    [Theory]
    [InlineData("GET / HTTP/1.1\r\nHost:a\r\nX-Empty:\r\nX-Spaces: \t v a l \t \r\n\r\n")]
    [InlineData("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")]
    [InlineData("PURGE / HTTP/1.1\r\nHost: a\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nX-Latin: caf\u00e9\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: a%41b\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: tfb-server:\r\n\r\n")]
    [InlineData("GET / HTTP/1.1\r\nHost: a,b\r\n\r\n")]
    public void UnusualButValidRequestsAreAccepted(string request)
    {
        Assert.Equal(ParseStatus.Complete, Parse(request).Status);
    }

    // Rejections by name and statuses by number: the engine's enums stay internal, and a public theory cannot take them.
    public static TheoryData<string, string, int> InvalidRequests() => new()
    {
        { "GET  /x HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidTarget), (int)HttpStatus.BadRequest },
        { " GET /x HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidMethod), (int)HttpStatus.BadRequest },
        { "G@T /x HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidMethod), (int)HttpStatus.BadRequest },
        { "GET\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidRequestLine), (int)HttpStatus.BadRequest },
        { "GET /x\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidRequestLine), (int)HttpStatus.BadRequest },
        { "GET /\u0001 HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidTarget), (int)HttpStatus.BadRequest },
        { "GET /\u00e9 HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidTarget), (int)HttpStatus.BadRequest },
        { "GET x HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidTarget), (int)HttpStatus.BadRequest },
        { "GET * HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidTarget), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1 \r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidVersion), (int)HttpStatus.BadRequest },
        { "GET /x HTTPS/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidVersion), (int)HttpStatus.BadRequest },
        { "GET /x http/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidVersion), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/2.0\r\nHost: a\r\n\r\n", nameof(RequestRejection.UnsupportedVersion), (int)HttpStatus.HttpVersionNotSupported },
        { "GET /x HTTP/0.9\r\nHost: a\r\n\r\n", nameof(RequestRejection.UnsupportedVersion), (int)HttpStatus.HttpVersionNotSupported },
        { "GET /x HTTP/1.1\nHost: a\r\n\r\n", nameof(RequestRejection.InvalidRequestLine), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", nameof(RequestRejection.InvalidHeaderLine), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost : a\r\n\r\n", nameof(RequestRejection.InvalidHeaderName), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n", nameof(RequestRejection.InvalidHeaderLine), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", nameof(RequestRejection.InvalidHeaderLine), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n folded\r\n\r\n", nameof(RequestRejection.ObsoleteLineFolding), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\n Host: a\r\n\r\n", nameof(RequestRejection.ObsoleteLineFolding), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a\r\nX-A: a\u0000b\r\n\r\n", nameof(RequestRejection.InvalidHeaderValue), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a\r\nX-A: a\rb\r\n\r\n", nameof(RequestRejection.InvalidHeaderValue), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nAccept: */*\r\n\r\n", nameof(RequestRejection.MissingHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", nameof(RequestRejection.MultipleHosts), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", nameof(RequestRejection.MultipleHosts), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: user@a\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a/b\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a, b\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: \r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: :80\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a:8o\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a%zz\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: [::1\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.1\r\nHost: a?b\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { "GET /x HTTP/1.0\r\nHost: a\tb\r\n\r\n", nameof(RequestRejection.InvalidHost), (int)HttpStatus.BadRequest },
        { new string('M', 9000) + " / HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.MethodTooLong), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", nameof(RequestRejection.InvalidContentLength), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", nameof(RequestRejection.InvalidContentLength), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", nameof(RequestRejection.InvalidContentLength), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", nameof(RequestRejection.InvalidContentLength), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", nameof(RequestRejection.InvalidContentLength), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", nameof(RequestRejection.InvalidContentLength), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", nameof(RequestRejection.ConflictingContentLength), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", nameof(RequestRejection.ContentLengthWithTransferEncoding), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", nameof(RequestRejection.UnsupportedTransferCoding), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", nameof(RequestRejection.UnsupportedTransferCoding), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", nameof(RequestRejection.UnsupportedTransferCoding), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", nameof(RequestRejection.UnsupportedTransferCoding), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n", nameof(RequestRejection.UnsupportedTransferCoding), (int)HttpStatus.BadRequest },
        { "POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", nameof(RequestRejection.TransferEncodingInHttp10), (int)HttpStatus.BadRequest },
        { "GET /" + new string('a', 8200) + " HTTP/1.1\r\nHost: a\r\n\r\n", nameof(RequestRejection.RequestLineTooLong), (int)HttpStatus.UriTooLong },
        { "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + new string('a', 33 * 1024) + "\r\n\r\n", nameof(RequestRejection.HeadersTooLarge), (int)HttpStatus.RequestHeaderFieldsTooLarge },
        { "GET / HTTP/1.1\r\nHost: a\r\n" + string.Concat(Enumerable.Range(0, 100).Select(i => $"X-{i}: v\r\n")) + "\r\n", nameof(RequestRejection.TooManyHeaders), (int)HttpStatus.RequestHeaderFieldsTooLarge },
    };

    [Fact]
    public void AContentLengthPastTheConfiguredBodyLimitIsLeftToItsResourceToJudge()
    {
        Parsed parsed = Parse("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n", new HttpLimits { MaxRequestBodySize = 10 });

        Assert.Equal(ParseStatus.Complete, parsed.Status);
    }

    [Theory]
    [MemberData(nameof(InvalidRequests))]
    public void InvalidRequestIsRejectedWithItsStatus(string request, string rejection, int status)
    {
        Parsed parsed = Parse(request);
        RequestRejection expected = Enum.Parse<RequestRejection>(rejection);

        Assert.Equal(ParseStatus.Rejected, parsed.Status);
        Assert.Equal(expected, parsed.Rejection);
        Assert.Equal((HttpStatus)status, expected.ToStatus());
        Assert.False(expected.ToReason().IsEmpty);
    }

    [Theory]
    [MemberData(nameof(InvalidRequests))]
    public void InvalidRequestSplitOverSegmentsIsRejectedTheSameWay(string request, string rejection, int status)
    {
        RequestRejection expected = Enum.Parse<RequestRejection>(rejection);
        byte[] bytes = Requests.Bytes(request);
        Parsed parsed = Parse(Sequences.Split(bytes, 1, bytes.Length / 2, bytes.Length - 1));

        Assert.Equal(ParseStatus.Rejected, parsed.Status);
        Assert.Equal(expected, parsed.Rejection);
        Assert.Equal((HttpStatus)status, parsed.Rejection.ToStatus());
    }

    [Fact]
    public void RequestLineStillArrivingIsRejectedOnceItPassesTheLimit()
    {
        var limits = new HttpLimits();
        string partial = "GET /" + new string('a', limits.MaxRequestLineSize);

        Assert.Equal(RequestRejection.RequestLineTooLong, Parse(partial, limits).Rejection);
        Assert.Equal(ParseStatus.Incomplete, Parse(partial[..^10], limits).Status);
    }

    [Fact]
    public void HeadersStillArrivingAreRejectedOnceTheyPassTheLimit()
    {
        var limits = new HttpLimits();
        string partial = "GET / HTTP/1.1\r\nX-Big: " + new string('a', limits.MaxRequestHeadersSize + 10);

        Assert.Equal(RequestRejection.HeadersTooLarge, Parse(partial, limits).Rejection);
    }

    [Fact]
    public void HeadersAtTheLimitsAreAccepted()
    {
        var limits = new HttpLimits();
        string line = "GET /" + new string('a', limits.MaxRequestLineSize - "GET / HTTP/1.1".Length) + " HTTP/1.1";
        string fields = "Host: a\r\n" + string.Concat(Enumerable.Range(0, limits.MaxRequestHeaderCount - 1).Select(i => $"X-{i:D2}: v\r\n"));

        Assert.Equal(limits.MaxRequestLineSize, line.Length);
        Assert.Equal(ParseStatus.Complete, Parse(line + "\r\n" + fields + "\r\n", limits).Status);
    }

    [Fact]
    public void LeadingEmptyLinesAloneAreConsumedWhileWaiting()
    {
        Parsed parsed = Parse("\r\n\r\n");

        Assert.Equal(ParseStatus.Incomplete, parsed.Status);
        Assert.Equal(4, parsed.Consumed);
    }

    [Theory]
    [InlineData("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", true)]
    [InlineData("POST / HTTP/1.1\r\nHost: a\r\nEXPECT: 100-Continue\r\nTransfer-Encoding: chunked\r\n\r\n", true)]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n", false)]
    [InlineData("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", false)]
    [InlineData("POST / HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\nContent-Length: 5\r\n\r\n", false)]
    public void ExpectContinueIsRecordedOnlyForHttp11RequestsWithABody(string request, bool expected)
    {
        foreach (ReadOnlySequence<byte> buffer in new[] { new ReadOnlySequence<byte>(Requests.Bytes(request)), Sequences.Split(Requests.Bytes(request), 7) })
        {
            var parser = new HttpParser(new HttpLimits());
            Assert.Equal(ParseStatus.Complete, parser.TryParseHead(buffer, out RequestHead head, out _, out _, out _));
            Assert.Equal(expected, head.ExpectContinue);
        }
    }
}
