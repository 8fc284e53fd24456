using System.Buffers.Binary;
using System.Globalization;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Text;
using PlatformBenchmarks.Http.Http2;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>Request content over HTTP/2 against the server's own routes (RFC 9113 §8.1): DATA, Content-Length, trailers.</summary>
public sealed partial class Http2ConnectionTests
{
    [Theory]
    [InlineData("baseline11?a=1&b=2", "3")]
    [InlineData("", "echo this body")]
    [InlineData("upload", "")]
    public async Task PostRoutesAnswerOverHttp2AsOverHttp11(string target, string body)
    {
        using HttpClient http2 = NewHttp2Client();
        using var http1 = new HttpClient();

        using HttpResponseMessage expected = await http1.PostAsync(new Uri(server.Http1Address, target), new StringContent(body), Deadline);
        using HttpResponseMessage actual = await http2.SendAsync(Http2Post(target, new StringContent(body)), Deadline);

        Assert.Equal(HttpVersion.Version20, actual.Version);
        Assert.Equal(HttpStatusCode.OK, expected.StatusCode);
        Assert.Equal(expected.StatusCode, actual.StatusCode);
        Assert.Equal(expected.Content.Headers.ContentType?.ToString(), actual.Content.Headers.ContentType?.ToString());
        Assert.Equal(await expected.Content.ReadAsStringAsync(Deadline), await actual.Content.ReadAsStringAsync(Deadline));
    }

    [Fact]
    public async Task UploadsLargerThanTheWindowsAreCountedWhileSharingAConnection()
    {
        // 300 kB each, four at once on one connection: far past the 64 kB windows, which open only as /upload reads.
        const int Size = 300_000;
        using HttpClient client = NewHttp2Client();
        await client.SendAsync(Http2Get("plaintext"), Deadline);

        HttpResponseMessage[] responses = await Task.WhenAll(Enumerable.Range(0, 4).Select(i =>
            client.SendAsync(Http2Post("upload", new ByteArrayContent(new byte[Size + i])), Deadline)));

        for (int i = 0; i < responses.Length; i++)
        {
            using HttpResponseMessage response = responses[i];
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal((Size + i).ToString(CultureInfo.InvariantCulture), (await response.Content.ReadAsStringAsync(Deadline)).Trim());
        }
    }

    [Fact]
    public async Task ContentInDataFramesIsEchoedWithTrailersAccepted()
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Request("POST", "/", ("content-type", "text/plain"))), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Data, 0, 1, "abc"u8.ToArray()), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Data, 0, 1, "def"u8.ToArray()), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, Block(("x-checksum", "1"))), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Data && (frame.Flags & Http2FrameFlags.EndStream) != 0);

        Assert.DoesNotContain(frames, frame => frame.Type is Http2FrameType.RstStream or Http2FrameType.GoAway);
        Assert.Equal("abcdef", Encoding.ASCII.GetString([.. frames.Where(frame => frame.Type == Http2FrameType.Data).SelectMany(frame => frame.Payload)]));
    }

    [Theory]
    [InlineData(5, "abc")]
    [InlineData(2, "abc")]
    public async Task ContentThatDoesNotMatchItsContentLengthResetsTheStream(int declared, string sent)
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Request("POST", "/", ("content-length", declared.ToString(CultureInfo.InvariantCulture)))), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Data, Http2FrameFlags.EndStream, 1, Encoding.ASCII.GetBytes(sent)), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.RstStream);

        // §8.1.1: a malformed request, a stream error; the response is never sent.
        Assert.Equal(1, frames[^1].StreamId);
        Assert.Equal(Http2ErrorCode.ProtocolError, RstCode(frames[^1]));
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.Headers);
    }

    [Theory]
    [InlineData(true, true)]
    [InlineData(false, false)]
    public async Task MalformedTrailersResetTheStream(bool pseudoHeader, bool endStream)
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Request("POST", "/")), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Data, 0, 1, "abc"u8.ToArray()), Deadline);
        byte[] trailers = pseudoHeader ? Block((":path", "/")) : Block(("x-checksum", "1"));
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, (byte)(Http2FrameFlags.EndHeaders | (endStream ? Http2FrameFlags.EndStream : 0)), 1, trailers), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.RstStream);

        // §8.1: trailers end the stream and carry no pseudo-header.
        Assert.Equal(Http2ErrorCode.ProtocolError, RstCode(frames[^1]));
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.GoAway);
    }

    [Fact]
    public async Task DataAfterTheEndOfTheStreamGetsStreamClosed()
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Request("POST", "/")), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Data, Http2FrameFlags.EndStream, 1, "abc"u8.ToArray()), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Data, Http2FrameFlags.EndStream, 1, "more"u8.ToArray()), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.RstStream);

        // §5.1: half-closed (remote) or closed, DATA is a stream error STREAM_CLOSED; the connection goes on.
        Assert.Equal(1, frames[^1].StreamId);
        Assert.Equal(Http2ErrorCode.StreamClosed, RstCode(frames[^1]));
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 3, s_getPlaintext), Deadline);
        List<Frame> next = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Data && frame.StreamId == 3);
        Assert.Equal("Hello, World!", Encoding.ASCII.GetString(next[^1].Payload));
    }

    private static HttpRequestMessage Http2Post(string target, HttpContent content) => new(System.Net.Http.HttpMethod.Post, target)
    {
        Version = HttpVersion.Version20,
        VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        Content = content,
    };

    private static Http2ErrorCode RstCode(Frame reset)
    {
        Assert.Equal(Http2FrameType.RstStream, reset.Type);
        return (Http2ErrorCode)BinaryPrimitives.ReadUInt32BigEndian(reset.Payload);
    }

    /// <summary>A request's header block: the pseudo-headers, then <paramref name="fields"/>.</summary>
    private static byte[] Request(string method, string path, params (string Name, string Value)[] fields) =>
        Block([(":method", method), (":scheme", "http"), (":path", path), (":authority", "localhost"), .. fields]);

    /// <summary>Fields as literals without indexing with literal names (RFC 7541 §6.2.2), none longer than 126 bytes.</summary>
    private static byte[] Block(params (string Name, string Value)[] fields)
    {
        var block = new List<byte>();
        foreach ((string name, string value) in fields)
        {
            block.Add(0);
            block.Add((byte)name.Length);
            block.AddRange(Encoding.ASCII.GetBytes(name));
            block.Add((byte)value.Length);
            block.AddRange(Encoding.ASCII.GetBytes(value));
        }

        return [.. block];
    }
}
