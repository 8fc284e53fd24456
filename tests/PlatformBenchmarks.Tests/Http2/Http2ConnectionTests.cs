using System.Buffers.Binary;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Text;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Http.Http2;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// The h2c:// listener end to end: the framework's HttpClient speaking HTTP/2 with prior knowledge, and raw frames for
/// the errors a client must get (RFC 9113).
/// </summary>
public sealed partial class Http2ConnectionTests(H2cServerFixture server) : IClassFixture<H2cServerFixture>
{
    private static readonly byte[] s_clientPreface = Encoding.ASCII.GetBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

    // A GET of /plaintext: :method GET, :scheme http, :path as a literal, :authority as a literal (RFC 7541 §6.1, §6.2.2).
    private static readonly byte[] s_getPlaintext = [0x82, 0x86, 0x04, 10, .. "/plaintext"u8, 0x01, 9, .. "localhost"u8];

    private static CancellationToken Deadline => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;

    [Fact]
    public void H2cAddressesAreParsedAsHttp2Only()
    {
        IReadOnlyList<ListenAddress> addresses = ServerSettings.ParseUrls("http://127.0.0.1:9001;h2c://127.0.0.1:9002");

        Assert.False(addresses[0].H2c);
        Assert.True(addresses[1].H2c);
        Assert.False(addresses[1].Tls);
        Assert.Equal(9002, addresses[1].Port);
    }

    [Theory]
    [InlineData("plaintext", "text/plain", "Hello, World!")]
    [InlineData("json", "application/json", "{\"message\":\"Hello, World!\"}")]
    public async Task TfbRoutesAnswerOverHttp2(string path, string contentType, string body)
    {
        using HttpClient client = NewHttp2Client();

        using HttpResponseMessage response = await client.SendAsync(Http2Get(path), Deadline);

        Assert.Equal(HttpVersion.Version20, response.Version);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(contentType, response.Content.Headers.ContentType!.ToString());
        Assert.Equal(body.Length, response.Content.Headers.ContentLength);
        Assert.Equal("PB", response.Headers.Server.ToString());
        Assert.NotNull(response.Headers.Date);
        Assert.Equal(body, await response.Content.ReadAsStringAsync(Deadline));
    }

    [Theory]
    [InlineData("plaintext")]
    [InlineData("json")]
    [InlineData("baseline11?a=3&b=4")]
    [InlineData("pipeline")]
    [InlineData("no-such-route")]
    public async Task EachRouteAnswersOverHttp2AsOverHttp11(string target)
    {
        using HttpClient http2 = NewHttp2Client();
        using var http1 = new HttpClient();

        using HttpResponseMessage expected = await http1.GetAsync(new Uri(server.Http1Address, target), Deadline);
        using HttpResponseMessage actual = await http2.SendAsync(Http2Get(target), Deadline);

        Assert.Equal(HttpVersion.Version11, expected.Version);
        Assert.Equal(HttpVersion.Version20, actual.Version);
        Assert.Equal(expected.StatusCode, actual.StatusCode);
        Assert.Equal(expected.Content.Headers.ContentType?.ToString(), actual.Content.Headers.ContentType?.ToString());
        Assert.Equal(await expected.Content.ReadAsStringAsync(Deadline), await actual.Content.ReadAsStringAsync(Deadline));
    }

    [Fact]
    public async Task ManyConcurrentStreamsOnOneConnectionAreAllAnswered()
    {
        // One handler keeps one HTTP/2 connection (EnableMultipleHttp2Connections is off), so these share it.
        using HttpClient client = NewHttp2Client();
        await client.SendAsync(Http2Get("plaintext"), Deadline);

        HttpResponseMessage[] responses = await Task.WhenAll(Enumerable.Range(0, 300).Select(i => client.SendAsync(Http2Get(i % 2 == 0 ? "plaintext" : "json"), Deadline)));

        for (int i = 0; i < responses.Length; i++)
        {
            using HttpResponseMessage response = responses[i];
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(HttpVersion.Version20, response.Version);
            Assert.Equal(i % 2 == 0 ? "Hello, World!" : "{\"message\":\"Hello, World!\"}", await response.Content.ReadAsStringAsync(Deadline));
        }
    }

    [Fact]
    public async Task AnHttp11RequestOnTheH2cPortIsRefusedWithGoAway()
    {
        await using NetworkStream stream = await server.ConnectH2cAsync();
        await stream.WriteAsync(Requests.Bytes(Requests.Plaintext), Deadline);

        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(stream);

        Assert.Equal(Http2FrameType.Settings, frames[0].Type);
        Assert.Equal(Http2ErrorCode.ProtocolError, GoAwayCode(frames[^1]));
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.Headers);
        Assert.True(closed);
    }

    [Fact]
    public async Task ABadPrefaceIsRefusedWithGoAway()
    {
        await using NetworkStream stream = await server.ConnectH2cAsync();
        await stream.WriteAsync("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"u8.ToArray(), Deadline);

        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(stream);

        Assert.Equal(Http2ErrorCode.ProtocolError, GoAwayCode(frames[^1]));
        Assert.True(closed);
    }

    [Fact]
    public async Task ARequestOverRawFramesIsAnsweredOnItsStream()
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, s_getPlaintext), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Data && (frame.Flags & Http2FrameFlags.EndStream) != 0);

        Frame headers = Assert.Single(frames, frame => frame.Type == Http2FrameType.Headers);
        Assert.Equal(1, headers.StreamId);
        Assert.Equal(0x88, headers.Payload[0]); // :status 200, static index 8.
        Assert.Equal("Hello, World!", Encoding.ASCII.GetString([.. frames.Where(frame => frame.Type == Http2FrameType.Data).SelectMany(frame => frame.Payload)]));
    }

    [Fact]
    public async Task AResponseWaitsForTheStreamWindowToOpen()
    {
        // The client's SETTINGS give each stream a window of 5 bytes: the body's first 5 go, the rest waits (§6.9).
        await using NetworkStream stream = await StartAsync(settings: [(Http2SettingsParameter.InitialWindowSize, 5)]);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, s_getPlaintext), Deadline);
        await stream.WriteAsync(Frame.Ping(), Deadline);

        List<Frame> first = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Ping);
        Frame data = Assert.Single(first, frame => frame.Type == Http2FrameType.Data);
        Assert.Equal("Hello", Encoding.ASCII.GetString(data.Payload));
        Assert.Equal(0, data.Flags & Http2FrameFlags.EndStream);

        byte[] increment = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(increment, 100);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.WindowUpdate, 0, 1, increment), Deadline);
        List<Frame> rest = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Data);
        Assert.Equal(", World!", Encoding.ASCII.GetString(rest[^1].Payload));
        Assert.Equal(Http2FrameFlags.EndStream, rest[^1].Flags & Http2FrameFlags.EndStream);
    }

    [Fact]
    public async Task HeadersOnStreamZeroEndTheConnection()
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 0, s_getPlaintext), Deadline);

        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(stream);

        Assert.Equal(Http2ErrorCode.ProtocolError, GoAwayCode(frames[^1]));
        Assert.True(closed);
    }

    [Theory]
    [InlineData((byte)Http2FrameType.Ping, 0)]
    [InlineData((byte)Http2FrameType.Continuation, 3)]
    public async Task AHeaderBlockInterruptedByAnotherFrameEndsTheConnection(byte type, int streamId)
    {
        var interruption = (Http2FrameType)type;
        await using NetworkStream stream = await StartAsync();
        // HEADERS without END_HEADERS: only CONTINUATION on stream 1 may follow (§6.10).
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndStream, 1, s_getPlaintext.AsSpan(0, 3).ToArray()), Deadline);
        byte[] payload = interruption == Http2FrameType.Ping ? new byte[8] : s_getPlaintext.AsSpan(3).ToArray();
        await stream.WriteAsync(Frame.Bytes(interruption, Http2FrameFlags.EndHeaders, streamId, payload), Deadline);

        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(stream);

        Assert.Equal(Http2ErrorCode.ProtocolError, GoAwayCode(frames[^1]));
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.Headers);
        Assert.True(closed);
    }

    [Fact]
    public async Task AHeaderBlockSplitAcrossContinuationIsAnswered()
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndStream, 1, s_getPlaintext.AsSpan(0, 5).ToArray()), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Continuation, 0, 1, s_getPlaintext.AsSpan(5, 4).ToArray()), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Continuation, Http2FrameFlags.EndHeaders, 1, s_getPlaintext.AsSpan(9).ToArray()), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Data && (frame.Flags & Http2FrameFlags.EndStream) != 0);

        Assert.Equal("Hello, World!", Encoding.ASCII.GetString(frames[^1].Payload));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(1)]
    public async Task AStreamIdentifierEvenOrNotAboveTheLastEndsTheConnection(int secondStreamId)
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, s_getPlaintext), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, secondStreamId, s_getPlaintext), Deadline);

        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(stream);

        Assert.Equal(Http2ErrorCode.ProtocolError, GoAwayCode(frames[^1]));
        Assert.Equal(1, BinaryPrimitives.ReadInt32BigEndian(frames[^1].Payload)); // The last stream processed.
        Assert.True(closed);
    }

    [Fact]
    public async Task PriorityAndUnknownFramesAreIgnored()
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Priority, 0, 1, [0, 0, 0, 0, 16]), Deadline);
        await stream.WriteAsync(Frame.Bytes((Http2FrameType)0xEE, 0xFF, 1, [1, 2, 3]), Deadline);
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, s_getPlaintext), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Data && (frame.Flags & Http2FrameFlags.EndStream) != 0);

        Assert.DoesNotContain(frames, frame => frame.Type is Http2FrameType.GoAway or Http2FrameType.RstStream);
        Assert.Equal("Hello, World!", Encoding.ASCII.GetString(frames[^1].Payload));
    }

    [Fact]
    public async Task PingIsAcknowledgedWithItsData()
    {
        await using NetworkStream stream = await StartAsync();
        await stream.WriteAsync(Frame.Bytes(Http2FrameType.Ping, 0, 0, [1, 2, 3, 4, 5, 6, 7, 8]), Deadline);

        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Ping);

        Assert.Equal(Http2FrameFlags.Ack, frames[^1].Flags);
        Assert.Equal([1, 2, 3, 4, 5, 6, 7, 8], frames[^1].Payload);
    }

    private HttpClient NewHttp2Client() => new(new SocketsHttpHandler()) { BaseAddress = server.H2cAddress };

    private static HttpRequestMessage Http2Get(string target) => new(System.Net.Http.HttpMethod.Get, target)
    {
        Version = HttpVersion.Version20,
        VersionPolicy = HttpVersionPolicy.RequestVersionExact,
    };

    /// <summary>A connection past the preface and the SETTINGS exchange.</summary>
    private async Task<NetworkStream> StartAsync(params (Http2SettingsParameter Parameter, uint Value)[] settings)
    {
        NetworkStream stream = await server.ConnectH2cAsync();
        byte[] entries = new byte[settings.Length * 6];
        for (int i = 0; i < settings.Length; i++)
        {
            BinaryPrimitives.WriteUInt16BigEndian(entries.AsSpan(i * 6), (ushort)settings[i].Parameter);
            BinaryPrimitives.WriteUInt32BigEndian(entries.AsSpan((i * 6) + 2), settings[i].Value);
        }

        await stream.WriteAsync((byte[])[.. s_clientPreface, .. Frame.Bytes(Http2FrameType.Settings, 0, 0, entries)], Deadline);
        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.Settings && frame.Flags == Http2FrameFlags.Ack);
        Assert.Equal(Http2FrameType.Settings, frames[0].Type);
        return stream;
    }

    private static Http2ErrorCode GoAwayCode(Frame goAway)
    {
        Assert.Equal(Http2FrameType.GoAway, goAway.Type);
        return (Http2ErrorCode)BinaryPrimitives.ReadUInt32BigEndian(goAway.Payload.AsSpan(4));
    }

    private static async Task<List<Frame>> ReadUntilAsync(Stream stream, Func<Frame, bool> last)
    {
        var frames = new List<Frame>();
        while (true)
        {
            Frame? frame = await Frame.ReadAsync(stream);
            Assert.NotNull(frame);
            frames.Add(frame);
            if (last(frame))
            {
                return frames;
            }
        }
    }

    /// <summary>The frames up to a GOAWAY, and whether the server then closed the connection.</summary>
    private static async Task<(List<Frame> Frames, bool Closed)> ReadUntilGoAwayAsync(Stream stream)
    {
        List<Frame> frames = await ReadUntilAsync(stream, frame => frame.Type == Http2FrameType.GoAway);
        bool closed;
        try
        {
            closed = await stream.ReadAsync(new byte[1], Deadline) == 0;
        }
        catch (IOException)
        {
            closed = true;
        }

        return (frames, closed);
    }

    /// <summary>One frame as the test reads or writes it (RFC 9113 §4.1).</summary>
    private sealed record Frame(Http2FrameType Type, byte Flags, int StreamId, byte[] Payload)
    {
        public static byte[] Bytes(Http2FrameType type, byte flags, int streamId, byte[] payload)
        {
            byte[] bytes = new byte[9 + payload.Length];
            BinaryPrimitives.WriteUInt32BigEndian(bytes, (uint)payload.Length << 8 | (byte)type);
            bytes[4] = flags;
            BinaryPrimitives.WriteInt32BigEndian(bytes.AsSpan(5), streamId);
            payload.CopyTo(bytes, 9);
            return bytes;
        }

        public static byte[] Ping() => Bytes(Http2FrameType.Ping, 0, 0, new byte[8]);

        public static async Task<Frame?> ReadAsync(Stream stream)
        {
            byte[] header = new byte[9];
            try
            {
                await stream.ReadExactlyAsync(header, Deadline);
            }
            catch (EndOfStreamException)
            {
                return null;
            }

            int length = header[0] << 16 | header[1] << 8 | header[2];
            byte[] payload = new byte[length];
            await stream.ReadExactlyAsync(payload, Deadline);
            return new Frame((Http2FrameType)header[3], header[4], BinaryPrimitives.ReadInt32BigEndian(header.AsSpan(5)) & 0x7FFF_FFFF, payload);
        }
    }
}
