using System.Net.WebSockets;
using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Http.WebSockets.Frames;

namespace PlatformBenchmarks.Tests.Http.WebSockets;

/// <summary>The frames of RFC 6455 §5 over in-memory pipes: valid and invalid frames, split reads, fragments, limits, timeouts.</summary>
public class WebSocketFrameTests
{
    private static readonly HttpLimits Limits = new() { LingerTimeout = TimeSpan.Zero, MaxWebSocketMessageSize = 300, WebSocketIdleTimeout = TimeSpan.FromSeconds(30) };

    /// <summary>Frames sent after the handshake, and what the server answers: the echo of "ok" (0), or a close with its code.</summary>
    public static TheoryData<string, byte[], int> FrameTable() => new()
    {
        { "text", TextFrame("ok"), 0 },
        { "a 16-bit length for a short payload", Frame(Text, "ok"u8.ToArray(), lengthForm: 126), 0 },
        { "a 64-bit length for a short payload", Frame(Text, "ok"u8.ToArray(), lengthForm: 127), 0 },
        { "a zero mask", Frame(Text, "ok"u8.ToArray(), mask: [0, 0, 0, 0]), 0 },
        { "an unsolicited pong first", Concat(Frame(Pong, "x"u8.ToArray()), TextFrame("ok")), 0 },
        { "two-byte and four-byte characters split across fragments", Concat(Frame(Text, [0xC3], fin: false), Frame(Continuation, [0xA9, 0xF0, 0x9F], fin: false), Frame(Continuation, [0x98, 0x80])), 0 },
        { "an unmasked frame", Frame(Text, "ok"u8.ToArray(), masked: false), 1002 },
        { "RSV1 (no extension negotiated)", Frame(Text, "ok"u8.ToArray(), rsv: 4), 1002 },
        { "RSV2", Frame(Text, "ok"u8.ToArray(), rsv: 2), 1002 },
        { "RSV3", Frame(Text, "ok"u8.ToArray(), rsv: 1), 1002 },
        { "data opcode 3", Frame(3, "ok"u8.ToArray()), 1002 },
        { "control opcode 0xB", Frame(0xB, []), 1002 },
        { "a continuation outside a message", Frame(Continuation, "ok"u8.ToArray()), 1002 },
        { "a new message inside a fragmented one", Concat(TextFrame("o", fin: false), TextFrame("k")), 1002 },
        { "a fragmented ping", Frame(Ping, "x"u8.ToArray(), fin: false), 1002 },
        { "a ping of 126 bytes", Frame(Ping, new byte[126]), 1002 },
        { "a close of one byte", Frame(Close, [3]), 1002 },
        { "close code 999", CloseFrame(999), 1002 },
        { "close code 1004", CloseFrame(1004), 1002 },
        { "close code 1005", CloseFrame(1005), 1002 },
        { "close code 1006", CloseFrame(1006), 1002 },
        { "close code 1015", CloseFrame(1015), 1002 },
        { "close code 2999", CloseFrame(2999), 1002 },
        { "close code 5000", CloseFrame(5000), 1002 },
        { "a close reason that is not UTF-8", Frame(Close, [0x03, 0xE8, 0xFF]), 1007 },
        { "text that is not UTF-8", Frame(Text, [0x6F, 0xFF]), 1007 },
        { "a UTF-16 surrogate in UTF-8", Frame(Text, [0xED, 0xA0, 0x80]), 1007 },
        { "an overlong form", Frame(Text, [0xC0, 0xAF]), 1007 },
        { "past U+10FFFF, refused at its prefix", Frame(Text, [0xF4, 0x90], fin: false), 1007 },
        { "text ending inside a character", Concat(Frame(Text, [0x6F, 0xC3], fin: false), Frame(Continuation, [])), 1007 },
        { "a message past the limit", TextFrame(new string('a', 301)), 1009 },
        { "fragments past the limit", Concat(TextFrame(new string('a', 200), fin: false), Frame(Continuation, new byte[101])), 1009 },
        { "a huge length announced", Frame(Binary, [], declaredLength: long.MaxValue), 1009 },
    };

    [Theory]
    [MemberData(nameof(FrameTable))]
    public async Task EachFrameGetsItsOutcome(string name, byte[] frames, int closeCode)
    {
        _ = name;
        var handler = new RecordingHandler(streams: false);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(handler);
        await connection.SendAsync(frames);
        ServerFrame frame = (await ReadFrameAsync(connection.Output))!;
        if (closeCode == 0)
        {
            Assert.Equal((Text, true), (frame.Opcode, frame.Fin));
            Assert.Equal(name.StartsWith("two-byte", StringComparison.Ordinal) ? "é😀" : "ok", frame.Text);
            return;
        }

        Assert.Equal((Close, closeCode), (frame.Opcode, frame.CloseCode));
        if (name == "a huge length announced")
        {
            // The frame announced 2^63-1 bytes: all the client sends is its payload, so only its end ends the connection.
            await connection.CompleteInputAsync();
            Assert.True(await connection.IsClosedAsync());
            return;
        }

        // §7.1.1: the client answers with its close, and the server then closes the TCP connection.
        await connection.SendAsync(CloseFrame((ushort)closeCode));
        Assert.True(await connection.IsClosedAsync());
        Assert.Equal((WebSocketCloseStatus)closeCode, await handler.Closed.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.DoesNotContain(handler.Received, m => m.End);
    }

    [Theory]
    [InlineData(1000)]
    [InlineData(1001)]
    [InlineData(1011)]
    [InlineData(1014)]
    [InlineData(3000)]
    [InlineData(4999)]
    public async Task TheClientsCloseIsAnsweredWithItsStatusAndTheServerClosesTcp(int code)
    {
        var handler = new RecordingHandler(streams: false);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(handler);
        await connection.SendAsync(CloseFrame((ushort)code, "done ✓"));
        ServerFrame frame = (await ReadFrameAsync(connection.Output))!;
        Assert.Equal((Close, code, 2), (frame.Opcode, frame.CloseCode, frame.Payload.Length));
        Assert.True(await connection.IsClosedAsync());
        Assert.Equal((WebSocketCloseStatus)code, await handler.Closed.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task AnEmptyCloseIsAnsweredWithAnEmptyClose()
    {
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(new RecordingHandler(streams: false));
        await connection.SendAsync(Frame(Close, []));
        ServerFrame frame = (await ReadFrameAsync(connection.Output))!;
        Assert.Equal((Close, 0), (frame.Opcode, frame.Payload.Length));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task APingIsAnsweredWithAPongOfItsPayload()
    {
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(new RecordingHandler(streams: false));
        byte[] payload = [.. Enumerable.Range(0, 125).Select(i => (byte)i)];
        await connection.SendAsync(Frame(Ping, payload));
        ServerFrame frame = (await ReadFrameAsync(connection.Output))!;
        Assert.Equal((Pong, true), (frame.Opcode, frame.Fin));
        Assert.Equal(payload, frame.Payload);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task FragmentsWithControlFramesBetweenThemMakeOneMessage(bool streams)
    {
        var handler = new RecordingHandler(streams);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(handler);
        await connection.SendAsync(Concat(
            TextFrame("hel", fin: false),
            Frame(Ping, "1"u8.ToArray()),
            Frame(Continuation, "lo "u8.ToArray(), fin: false),
            Frame(Pong, "x"u8.ToArray()),
            Frame(Ping, "2"u8.ToArray()),
            Frame(Continuation, "world"u8.ToArray())));

        // Whole: both pongs come before the message's echo. Streamed: each piece is echoed as it comes, between them.
        var frames = new List<ServerFrame>();
        while (frames.Count == 0 || frames[^1].Opcode == Pong || !frames[^1].Fin)
        {
            frames.Add((await ReadFrameAsync(connection.Output))!);
        }

        string[] expected = streams
            ? ["text:hel", "pong:1", "cont:lo ", "pong:2", "cont:world."]
            : ["pong:1", "pong:2", "text:hello world."];
        Assert.Equal(expected, frames.Select(Describe));
        Assert.Equal("hello world", string.Concat(handler.Received.Select(m => Encoding.UTF8.GetString(m.Payload))));
        Assert.All(handler.Received, m => Assert.Equal(WebSocketMessageType.Text, m.Type));
    }

    [Theory]
    [InlineData(false, 7)]
    [InlineData(true, 7)]
    [InlineData(false, 200)]
    [InlineData(true, 200)]
    public async Task AFrameSplitAtAnyByteIsTheSameFrame(bool streams, int length)
    {
        // Every split point of a frame: its header (2, 4 or 8 length bytes, the mask) and its payload, fed in two reads.
        string text = string.Concat(Enumerable.Repeat("é-", length / 3)) + new string('x', length % 3);
        Assert.Equal(length, Encoding.UTF8.GetByteCount(text));
        byte[] frame = TextFrame(text);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(new RecordingHandler(streams));
        for (int split = 1; split < frame.Length; split++)
        {
            await connection.SendAsync(frame[..split]);
            await connection.ExaminedAllSentAsync();
            await connection.SendAsync(frame[split..]);
            Assert.Equal(text, await ReadMessageAsync(connection.Output));
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ControlFramesAndAFragmentedCloseSplitAtAnyByteAreTheSame(bool streams)
    {
        byte[] bytes = Concat(Frame(Ping, "ab"u8.ToArray()), TextFrame("he", fin: false), Frame(Continuation, "y"u8.ToArray()));
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(new RecordingHandler(streams));
        for (int split = 1; split < bytes.Length; split++)
        {
            await connection.SendAsync(bytes[..split]);
            await connection.ExaminedAllSentAsync();
            await connection.SendAsync(bytes[split..]);
            ServerFrame pong = (await ReadFrameAsync(connection.Output))!;
            Assert.Equal((Pong, "ab"), (pong.Opcode, pong.Text));
            Assert.Equal("hey", await ReadMessageAsync(connection.Output));
        }

        // The close a byte per read.
        byte[] close = CloseFrame(1000, "bye");
        for (int i = 0; i < close.Length - 1; i++)
        {
            await connection.SendAsync(close[i..(i + 1)]);
            await connection.ExaminedAllSentAsync();
        }

        await connection.SendAsync(close[^1..]);
        Assert.Equal(1000, (await ReadFrameAsync(connection.Output))!.CloseCode);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task BytesPipelinedBehindTheHandshakeAreTheWebSockets()
    {
        await using var connection = new PipeConnection<WebSocketApplication>(new WebSocketApplication(new RecordingHandler(streams: false)), Limits);
        await connection.SendAsync(Concat(Encoding.ASCII.GetBytes(Handshake()), TextFrame("first"), Frame(Ping, []), TextFrame("second")));
        Assert.StartsWith("HTTP/1.1 101 ", await ReadHeadAsync(connection.Output), StringComparison.Ordinal);
        Assert.Equal("first", (await ReadFrameAsync(connection.Output))!.Text);
        Assert.Equal(Pong, (await ReadFrameAsync(connection.Output))!.Opcode);
        Assert.Equal("second", (await ReadFrameAsync(connection.Output))!.Text);
    }

    [Fact]
    public async Task AMessageAtTheLimitIsTakenAndTheLimitIsCheckedBeforeThePayloadArrives()
    {
        var handler = new RecordingHandler(streams: false);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(handler);
        string atLimit = new('a', 300);
        await connection.SendAsync(TextFrame(atLimit));
        Assert.Equal(atLimit, (await ReadFrameAsync(connection.Output))!.Text);

        // Only the header of a frame past the limit: the close comes without its payload.
        byte[] header = Frame(Binary, new byte[301])[..8];
        await connection.SendAsync(header);
        Assert.Equal(1009, (await ReadFrameAsync(connection.Output))!.CloseCode);
    }

    [Fact]
    public async Task AnIdleConnectionClosesAfterTheIdleTimeoutAndTrafficPostponesIt()
    {
        var handler = new RecordingHandler(streams: false);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(handler);
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromSeconds(29));
        await connection.SendAsync(Frame(Ping, "a"u8.ToArray()));
        Assert.Equal(Pong, (await ReadFrameAsync(connection.Output))!.Opcode);

        // 29 s more: 58 s since the upgrade, 29 s since the ping.
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromSeconds(29));
        await connection.SendAsync(Frame(Ping, "b"u8.ToArray()));
        ServerFrame pong = (await ReadFrameAsync(connection.Output))!;
        Assert.Equal((Pong, "b"), (pong.Opcode, pong.Text));

        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromSeconds(30));
        Assert.Equal(1001, (await ReadFrameAsync(connection.Output))!.CloseCode);
        await connection.SendAsync(CloseFrame(1001));
        Assert.True(await connection.IsClosedAsync());
        Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, await handler.Closed.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task AServerCloseThatTheClientNeverAnswersEndsAfterTheLingerTime()
    {
        var limits = new HttpLimits { LingerTimeout = TimeSpan.Zero, MaxLingerTime = TimeSpan.FromSeconds(5) };
        await using var connection = new PipeConnection<WebSocketApplication>(new WebSocketApplication(new RecordingHandler(streams: false)), limits);
        await connection.SendAsync(Handshake());
        _ = await ReadHeadAsync(connection.Output);
        await connection.SendAsync(TextFrame("close"));
        ServerFrame close = (await ReadFrameAsync(connection.Output))!;
        Assert.Equal((4000, "bye"), (close.CloseCode, Encoding.UTF8.GetString(close.Payload, 2, close.Payload.Length - 2)));

        // Messages after the server's close are dropped, not echoed.
        await connection.SendAsync(TextFrame("ignored"));
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromSeconds(4));
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromSeconds(1));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AHandlerThatAnswersLaterIsAwaitedInOrder()
    {
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(new RecordingHandler(streams: false));
        await connection.SendAsync(Concat(TextFrame("later"), TextFrame("now")));
        Assert.Equal("later", (await ReadFrameAsync(connection.Output))!.Text);
        Assert.Equal("now", (await ReadFrameAsync(connection.Output))!.Text);
    }

    [Fact]
    public async Task AHandlerThatThrowsClosesWith1011()
    {
        var handler = new RecordingHandler(streams: false);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(handler);
        await connection.SendAsync(TextFrame("throw"));
        Assert.Equal(1011, (await ReadFrameAsync(connection.Output))!.CloseCode);
        await connection.SendAsync(CloseFrame(1011));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task WhenTheHostStopsTheServerClosesWith1001()
    {
        using var stopping = new CancellationTokenSource();
        await using var connection = new PipeConnection<WebSocketApplication>(new WebSocketApplication(new RecordingHandler(streams: false)), Limits, closeRequested: stopping.Token);
        await connection.SendAsync(Handshake());
        _ = await ReadHeadAsync(connection.Output);
        await connection.WaitingForInputAsync();
        await stopping.CancelAsync();
        Assert.Equal(1001, (await ReadFrameAsync(connection.Output))!.CloseCode);
        await connection.SendAsync(CloseFrame(1001));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task TheClientEndingItsStreamWithoutACloseEndsTheConnection()
    {
        var handler = new RecordingHandler(streams: false);
        await using PipeConnection<WebSocketApplication> connection = await UpgradeAsync(handler);
        await connection.SendAsync(TextFrame("o", fin: false));
        await connection.CompleteInputAsync();
        Assert.True(await connection.IsClosedAsync());
        Assert.Equal(WebSocketCloseStatus.Empty, await handler.Closed.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task ABigMessageInManyReadsIsGatheredWholeOrStreamedInPieces()
    {
        var limits = new HttpLimits { LingerTimeout = TimeSpan.Zero, MaxWebSocketMessageSize = 200_000 };
        byte[] payload = [.. Enumerable.Range(0, 150_000).Select(i => (byte)(i * 7))];
        byte[] frame = Frame(Binary, payload);
        foreach (bool streams in new[] { false, true })
        {
            var handler = new RecordingHandler(streams);
            await using var connection = new PipeConnection<WebSocketApplication>(new WebSocketApplication(handler), limits);
            await connection.SendAsync(Handshake());
            _ = await ReadHeadAsync(connection.Output);

            // The echo is read as it comes: a streamed echo's pieces would otherwise fill the output and hold the server.
            Task<List<ServerFrame>> echo = ReadFramesOfMessageAsync(connection.Output);
            for (int i = 0; i < frame.Length; i += 10_000)
            {
                await connection.SendAsync(frame[i..Math.Min(frame.Length, i + 10_000)]);
                await connection.ExaminedAllSentAsync();
            }

            List<ServerFrame> frames = await echo;
            Assert.Equal([Binary, .. Enumerable.Repeat(Continuation, frames.Count - 1)], frames.Select(f => f.Opcode));
            Assert.Equal(payload, frames.SelectMany(f => f.Payload));
            Assert.Equal(streams ? handler.Received.Count : 1, handler.Received.Count);
            Assert.True(streams ? handler.Received.Count > 1 : handler.Received.Single().End);
        }
    }

    private static async Task<PipeConnection<WebSocketApplication>> UpgradeAsync(RecordingHandler handler)
    {
        var connection = new PipeConnection<WebSocketApplication>(new WebSocketApplication(handler), Limits);
        await connection.SendAsync(Handshake());
        Assert.StartsWith("HTTP/1.1 101 ", await ReadHeadAsync(connection.Output), StringComparison.Ordinal);
        return connection;
    }

    private static async Task<List<ServerFrame>> ReadFramesOfMessageAsync(Stream output)
    {
        var frames = new List<ServerFrame>();
        do
        {
            frames.Add((await ReadFrameAsync(output))!);
        }
        while (!frames[^1].Fin);

        return frames;
    }

    /// <summary>Reads frames up to the end of a message, pongs skipped, and returns its text.</summary>
    private static async Task<string> ReadMessageAsync(Stream output)
    {
        var bytes = new List<byte>();
        while (true)
        {
            ServerFrame frame = (await ReadFrameAsync(output))!;
            Assert.NotEqual(Close, frame.Opcode);
            bytes.AddRange(frame.Payload);
            if (frame.Fin)
            {
                return Encoding.UTF8.GetString([.. bytes]);
            }
        }
    }

    private static string Describe(ServerFrame frame) => frame.Opcode switch
    {
        Pong => "pong:" + frame.Text,
        Text => "text:" + frame.Text + (frame.Fin ? "." : ""),
        Continuation => "cont:" + frame.Text + (frame.Fin ? "." : ""),
        _ => $"opcode {frame.Opcode}",
    };
}
