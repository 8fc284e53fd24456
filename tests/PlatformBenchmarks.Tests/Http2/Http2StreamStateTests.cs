using System.IO.Pipelines;
using System.Text;
using PlatformBenchmarks.Http.Http2;
using PlatformBenchmarks.Tests.Http;
using PlatformBenchmarks.Tests.Support;
using Connection = PlatformBenchmarks.Tests.Support.Http2PipeConnection<PlatformBenchmarks.Tests.Http.EchoApplication>;
using Server = PlatformBenchmarks.Http.Http2.Http2Connection<PlatformBenchmarks.Tests.Http.EchoApplication>;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// A stream's states after its response (RFC 9113 §5.1): half-closed (local) while the client still sends, its windows
/// followed; closed by either side's RST_STREAM, and what each side's reset means for the frames that follow.
/// </summary>
public sealed class Http2StreamStateTests
{
    [Fact]
    public async Task AWindowUpdateThatComesBeforeTheResponseIsKept()
    {
        var gates = new Gates();
        await using var connection = new Connection(new EchoApplication(gates));
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));
        await connection.SendAsync(Connection.Request(1, "/gate/late"));
        await gates.ReachedAsync("late");

        // The window opens while the handler runs: the response goes out as soon as it is written.
        await connection.SendAsync([.. Connection.WindowUpdate(1, 100), .. Connection.Ping()]);
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        gates.Open("late");

        Http2TestFrame data = (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data)).Last();
        Assert.Equal("GET /gate/late ", Encoding.ASCII.GetString(data.Payload));
        Assert.Equal(Http2FrameFlags.EndStream, data.Flags);
        Assert.Equal(0, connection.Connection.HeldResponseBytes);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task AStreamWindowPastTheLimitIsAStreamErrorWhileTheStreamIsKept(bool answered)
    {
        // Answered early (a GET whose HEADERS did not end the stream: half-closed, local) or with its handler still running.
        var gates = new Gates();
        await using var connection = new Connection(new EchoApplication(gates));
        await connection.StartAsync();
        await connection.SendAsync(Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Connection.Get(answered ? "/size/5" : "/gate/late")));
        if (answered)
        {
            await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data);
        }
        else
        {
            await gates.ReachedAsync("late");
        }

        await connection.SendAsync([.. Connection.WindowUpdate(1, int.MaxValue), .. Connection.WindowUpdate(1, int.MaxValue), .. Connection.Ping()]);

        // §6.9.1: the stream's window past 2^31-1 is a FLOW_CONTROL_ERROR of the stream, the first reset it gets.
        List<Http2TestFrame> frames = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        Http2TestFrame reset = Assert.Single(frames, frame => frame.Type == Http2FrameType.RstStream);
        Assert.Equal(1, reset.StreamId);
        Assert.Equal(Http2ErrorCode.FlowControlError, reset.ErrorCode);
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.GoAway);
        gates.Open("late");
    }

    [Fact]
    public async Task DataAfterTheClientsOwnResetGetsStreamClosed()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        await connection.SendAsync(Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Connection.Get("/")));
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data);

        await connection.SendAsync([
            .. Connection.RstStream(1, Http2ErrorCode.Cancel),
            .. Connection.Frame(Http2FrameType.Data, Http2FrameFlags.EndStream, 1, "test"u8),
            .. Connection.Ping()]);

        // §5.1, closed: a frame after the client's own RST_STREAM is a stream error STREAM_CLOSED.
        List<Http2TestFrame> frames = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        Http2TestFrame reset = Assert.Single(frames, frame => frame.Type == Http2FrameType.RstStream);
        Assert.Equal(Http2ErrorCode.StreamClosed, reset.ErrorCode);
    }

    [Fact]
    public async Task TrailersOnAStreamThisSideResetAreIgnored()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        // More content than its Content-Length: reset (PROTOCOL_ERROR, §8.1.1) while the client still sends.
        await connection.SendAsync([
            .. Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Post("/count", contentLength: 2)),
            .. Connection.Frame(Http2FrameType.Data, 0, 1, "abc"u8)]);
        Http2TestFrame reset = (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.RstStream)).Single();
        Assert.Equal(Http2ErrorCode.ProtocolError, reset.ErrorCode);

        // Its trailers were in flight: ignored (§5.1), and decoded, so the entry they add is there for the next request.
        byte[] trailers = [0x40, 0x05, .. "x-sum"u8, 0x01, (byte)'1'];
        await connection.SendAsync([
            .. Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, trailers),
            .. Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 3, [.. Connection.Get("/after"), 0xBE])]);

        List<Http2TestFrame> frames = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data);
        Assert.DoesNotContain(frames, frame => frame.Type is Http2FrameType.GoAway or Http2FrameType.RstStream);
        Assert.Equal(200, connection.Status(frames.Single(frame => frame.Type == Http2FrameType.Headers)));
    }

    [Fact]
    public async Task AnEarlyAnswerOpensTheWindowForTheContentItDropsThenEndsTheUpload()
    {
        var gates = new Gates();
        await using var connection = new Connection(new EchoApplication(gates));
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));
        await connection.SendAsync(Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Post("/gate/late")));
        await gates.ReachedAsync("late");
        await SendContentAsync(connection, 1, Http2Output.DefaultWindowSize);

        // The handler answers without reading; its answer waits for a window: the whole window of content it dropped is
        // given back to the stream, so the client is not left blocked.
        gates.Open("late");
        Http2TestFrame update = (await connection.ReadUntilAsync(frame => frame is { Type: Http2FrameType.WindowUpdate, StreamId: 1 })).Last();
        Assert.Equal(Http2Output.DefaultWindowSize, System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(update.Payload));

        // Once the answer is whole, content that still comes gets NO_ERROR (§8.1).
        await connection.SendAsync(Connection.WindowUpdate(1, 100));
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data && frame.Flags == Http2FrameFlags.EndStream);
        await connection.SendAsync(Connection.Frame(Http2FrameType.Data, 0, 1, "more"u8));
        Http2TestFrame reset = (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.RstStream)).Single();
        Assert.Equal(Http2ErrorCode.NoError, reset.ErrorCode);
    }

    [Fact]
    public async Task ARefusalWhoseAnswerWaitsKeepsItsStream()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));

        // 413 from the head alone; its body waits for a window, and the content comes meanwhile: not STREAM_CLOSED.
        await connection.SendAsync([
            .. Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Post("/limit/5/echo", contentLength: 10)),
            .. Connection.Frame(Http2FrameType.Data, 0, 1, new byte[5]),
            .. Connection.Ping()]);
        List<Http2TestFrame> frames = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        Assert.Equal(413, connection.Status(frames.Single(frame => frame.Type == Http2FrameType.Headers)));
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.RstStream);

        await connection.SendAsync(Connection.WindowUpdate(1, 1000));
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data && frame.Flags == Http2FrameFlags.EndStream);
        await connection.SendAsync(Connection.Frame(Http2FrameType.Data, 0, 1, new byte[5]));
        Assert.Equal(Http2ErrorCode.NoError, (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.RstStream)).Single().ErrorCode);
    }

    [Fact]
    public async Task ABurstOfRefusalsIsRememberedWhole()
    {
        // Zero windows: every answer is held, so each stream counts as open and those past the limit are refused.
        await using var connection = new Connection(default);
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));
        const int refused = Server.MaxConcurrentStreams;
        await connection.SendAsync([.. Connection.Repeat(Server.MaxConcurrentStreams, i => Connection.Request(Connection.Stream(i), "/size/10")), .. Connection.Ping()]);
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);

        await connection.SendAsync([
            .. Connection.Repeat(refused, i => Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, Connection.Stream(Server.MaxConcurrentStreams + i), Connection.Get("/"))),
            .. Connection.Ping()]);
        List<Http2TestFrame> resets = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        Assert.Equal(refused, resets.Count(frame => frame is { Type: Http2FrameType.RstStream, ErrorCode: Http2ErrorCode.RefusedStream }));

        // The content each sent before it knew is ignored (§5.1), however many were refused at once.
        await connection.SendAsync([
            .. Connection.Repeat(refused, i => Connection.Frame(Http2FrameType.Data, Http2FrameFlags.EndStream, Connection.Stream(Server.MaxConcurrentStreams + i), "x"u8)),
            .. Connection.Ping()]);
        List<Http2TestFrame> frames = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.RstStream);
    }

    [Fact]
    public async Task FramesWrittenWhileAFlushWaitsGoOutAfterIt()
    {
        // A writer over a stream, as SslStream's is: it must not be written while its flush waits on the stream.
        var gates = new Gates();
        GatedStream? stream = null;
        await using var connection = new Connection(new EchoApplication(gates), output: writer => PipeWriter.Create(stream = new GatedStream(writer.AsStream())));
        await connection.StartAsync();
        await connection.SendAsync([.. Connection.Request(1, "/gate/a"), .. Connection.Request(3, "/gate/b")]);
        await gates.ReachedAsync("a");
        await gates.ReachedAsync("b");

        // The first answer's flush waits on the stream; the second answer is written meanwhile.
        stream!.Block();
        gates.Open("a");
        await stream.WaitingAsync();
        gates.Open("b");
        await gates.AnsweredAsync("b");

        stream.Open();
        List<Http2TestFrame> frames = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data && frame.StreamId == 3);
        Assert.Equal(["GET /gate/a ", "GET /gate/b "], frames.Where(frame => frame.Type == Http2FrameType.Data).Select(frame => Encoding.ASCII.GetString(frame.Payload)));
    }

    [Fact]
    public async Task AFlushTheClientNeverLetsCompleteEndsTheConnection()
    {
        // CVE-2019-9517: the client stops reading; the server's flush waits on the transport for good.
        GatedStream? stream = null;
        await using var connection = new Connection(default, output: writer => PipeWriter.Create(stream = new GatedStream(writer.AsStream())));
        await connection.StartAsync();
        stream!.Block();
        await connection.SendAsync(Connection.Request(1, "/size/100"));
        await stream.WaitingAsync();

        TimeSpan moved = TimeSpan.Zero;
        while (!connection.Completion.IsCompleted && moved < 2 * Server.StalledFlushTimeout)
        {
            connection.Time.Advance(TimeSpan.FromSeconds(1));
            moved += TimeSpan.FromSeconds(1);
            await Task.WhenAny(connection.Completion, Task.Delay(20));
        }

        Assert.True(connection.Completion.IsCompleted, $"The connection was still open after the clock moved {moved}.");
        Assert.True(moved >= Server.StalledFlushTimeout, $"Closed after {moved}.");
    }

    /// <summary>A POST of <paramref name="path"/>: :method POST and :scheme http indexed, the rest literals (RFC 7541 §6.2.2).</summary>
    private static byte[] Post(string path, int? contentLength = null)
    {
        byte[] block = [0x83, .. Connection.Get(path).AsSpan(1)];
        if (contentLength is not int length)
        {
            return block;
        }

        // content-length (static index 28) without indexing: a 4-bit prefix of 15, then 13.
        string value = length.ToString(System.Globalization.CultureInfo.InvariantCulture);
        return [.. block, 0x0f, 0x0d, (byte)value.Length, .. Encoding.ASCII.GetBytes(value)];
    }

    private static async Task SendContentAsync(Connection connection, int streamId, int length)
    {
        while (length > 0)
        {
            int size = Math.Min(length, Http2Frame.DefaultMaxFrameSize);
            length -= size;
            await connection.SendAsync(Connection.Frame(Http2FrameType.Data, 0, streamId, new byte[size]));
        }
    }

    /// <summary>A stream whose writes wait while it is blocked, as a socket's do when the peer stops reading.</summary>
    private sealed class GatedStream(Stream inner) : Stream
    {
        private readonly TaskCompletionSource _waiting = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private TaskCompletionSource _open = NewOpen(opened: true);

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public void Block() => _open = NewOpen(opened: false);

        public void Open() => _open.TrySetResult();

        /// <summary>Completes once a write waits.</summary>
        public Task WaitingAsync() => _waiting.Task.WaitAsync(TimeSpan.FromSeconds(10));

        public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            Task open = _open.Task;
            if (!open.IsCompleted)
            {
                _waiting.TrySetResult();
                await open.WaitAsync(cancellationToken);
            }

            await inner.WriteAsync(buffer, cancellationToken);
        }

        public override Task FlushAsync(CancellationToken cancellationToken) => inner.FlushAsync(cancellationToken);

        public override void Flush() => inner.Flush();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                inner.Dispose();
            }

            base.Dispose(disposing);
        }

        private static TaskCompletionSource NewOpen(bool opened)
        {
            var open = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            if (opened)
            {
                open.SetResult();
            }

            return open;
        }
    }
}
