using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.Http2;
using PlatformBenchmarks.Tests.Http;
using PlatformBenchmarks.Tests.Support;
using Connection = PlatformBenchmarks.Tests.Support.Http2PipeConnection<PlatformBenchmarks.Tests.Http.EchoApplication>;
using Server = PlatformBenchmarks.Http.Http2.Http2Connection<PlatformBenchmarks.Tests.Http.EchoApplication>;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// The connection's defences (RFC 9113 §10.5), each over raw frames: a flood ends in the error that names it, and the
/// cost stays bounded (the server stops reading where the budget ends, or what it holds stays below its limit).
/// </summary>
public sealed class Http2DefenceTests
{
    private static readonly HttpLimits s_limits = new();

    [Fact]
    public async Task RapidResetEndsTheConnectionOnceTheBudgetIsSpent()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        Task<List<Http2TestFrame>> frames = connection.ReadToEndAsync();

        // CVE-2023-44487: each stream opened and reset at once, far more than the budget.
        await connection.SendAsync(Connection.Repeat(Server.StreamResetBurst + 100, i => [.. Connection.Request(Connection.Stream(i), "/"), .. Connection.RstStream(Connection.Stream(i), Http2ErrorCode.Cancel)]));

        List<Http2TestFrame> received = await frames;
        Assert.Equal(Http2ErrorCode.EnhanceYourCalm, received[^1].ErrorCode);
        // The reset of stream number burst + 1 is the one too many: nothing after it was read.
        Assert.Equal(Connection.Stream(Server.StreamResetBurst), received[^1].LastStreamId);
        Assert.Equal(Server.StreamResetBurst + 1, received.Count(frame => frame.Type == Http2FrameType.Headers));
    }

    [Fact]
    public async Task ResetsSpreadOverTimeAreServed()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        for (int round = 0; round < 3; round++)
        {
            int first = round * Server.StreamResetBurst;
            await connection.SendAsync([
                .. Connection.Repeat(Server.StreamResetBurst, i => [.. Connection.Request(Connection.Stream(first + i), "/"), .. Connection.RstStream(Connection.Stream(first + i), Http2ErrorCode.Cancel)]),
                .. Connection.Ping()]);
            List<Http2TestFrame> received = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
            Assert.DoesNotContain(received, frame => frame.Type == Http2FrameType.GoAway);

            // The budget comes back at its rate: a client that resets this many streams every 10 s is never cut off.
            connection.Time.Advance(TimeSpan.FromSeconds(Server.StreamResetBurst / Server.StreamResetsPerSecond));
        }
    }

    [Fact]
    public async Task StreamsRefusedForHeldBytesCountAsResets()
    {
        // Zero stream windows: each response is held whole, so past MaxHeldResponseBytes every new stream is refused.
        await using var connection = new Connection(default);
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));
        const int size = 256 * 1024;
        const int batch = 400;
        var received = new List<Http2TestFrame>();

        // In batches, each read in full before the next, so that the answers queued per read stay below their own bound.
        for (int sent = 0; sent < 2 * Server.StreamResetBurst && (received.Count == 0 || received[^1].Type != Http2FrameType.GoAway); sent += batch)
        {
            await connection.SendAsync([.. Connection.Repeat(batch, i => Connection.Request(Connection.Stream(sent + i), $"/size/{size}")), .. Connection.Ping()]);
            received.AddRange(await connection.ReadUntilAsync(frame => frame.Type is Http2FrameType.Ping or Http2FrameType.GoAway));
        }

        Assert.Equal(Server.MaxHeldResponseBytes / size, received.Count(frame => frame.Type == Http2FrameType.Headers));
        Assert.Equal(Server.StreamResetBurst + 1, received.Count(frame => frame is { Type: Http2FrameType.RstStream, ErrorCode: Http2ErrorCode.RefusedStream }));
        Assert.Equal(Http2ErrorCode.EnhanceYourCalm, received[^1].ErrorCode);
    }

    [Theory]
    [InlineData((byte)Http2FrameType.Ping)]
    [InlineData((byte)Http2FrameType.Settings)]
    public async Task AControlFrameFloodIsCutWhereItsAnswersPassTheBound(byte type)
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        byte[] frame = (Http2FrameType)type == Http2FrameType.Ping ? Connection.Ping() : Connection.Settings();
        Task<List<Http2TestFrame>> frames = connection.ReadToEndAsync();
        long before = connection.Sent;

        await connection.SendAsync(Connection.Repeat(3 * Server.MaxQueuedControlFrames, _ => frame));

        List<Http2TestFrame> received = await frames;
        Assert.Equal(Http2ErrorCode.EnhanceYourCalm, received[^1].ErrorCode);
        Assert.Equal(Server.MaxQueuedControlFrames, received.Count(answer => answer.Type == (Http2FrameType)type));
        Assert.Equal(Server.MaxQueuedControlFrames, connection.Connection.PeakQueuedControlFrames);
        Assert.Equal(before + ((Server.MaxQueuedControlFrames + 1) * frame.Length), connection.Consumed);
    }

    [Fact]
    public async Task AClientThatReadsItsAnswersMayPingWithoutEnd()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        for (int round = 0; round < 5; round++)
        {
            await connection.SendAsync(Connection.Repeat(Server.MaxQueuedControlFrames - 1, i => Connection.Ping((byte)(i == Server.MaxQueuedControlFrames - 2 ? 1 : 0))));
            List<Http2TestFrame> received = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping && frame.Payload[0] == 1);
            Assert.Equal(Server.MaxQueuedControlFrames - 1, received.Count);
        }
    }

    [Fact]
    public async Task EmptyDataFramesEndTheConnectionPastTheirBudget()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        await connection.SendAsync(Connection.Request(1, "/"));
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data);
        Task<List<Http2TestFrame>> frames = connection.ReadToEndAsync();
        long before = connection.Sent;

        // Zero-length DATA without END_STREAM on a closed stream: nothing to do, and nothing that ends.
        byte[] empty = Connection.Frame(Http2FrameType.Data, 0, 1, []);
        await connection.SendAsync(Connection.Repeat(10 * Server.EmptyFrameBurst, _ => empty));

        List<Http2TestFrame> received = await frames;
        Assert.Equal(Http2ErrorCode.EnhanceYourCalm, received[^1].ErrorCode);
        Assert.Equal(before + ((Server.EmptyFrameBurst + 1) * empty.Length), connection.Consumed);
    }

    [Fact]
    public async Task EmptyContinuationFramesEndTheConnectionPastTheirBudget()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        Task<List<Http2TestFrame>> frames = connection.ReadToEndAsync();

        byte[] empty = Connection.Frame(Http2FrameType.Continuation, 0, 1, []);
        await connection.SendAsync([
            .. Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndStream, 1, Connection.Get("/")),
            .. Connection.Repeat(10 * Server.EmptyFrameBurst, _ => empty),
            .. Connection.Frame(Http2FrameType.Continuation, Http2FrameFlags.EndHeaders, 1, [])]);

        List<Http2TestFrame> received = await frames;
        Assert.Equal(Http2ErrorCode.EnhanceYourCalm, Assert.Single(received).ErrorCode);
    }

    [Fact]
    public async Task AFewEmptyContinuationFramesAreServed()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        byte[] empty = Connection.Frame(Http2FrameType.Continuation, 0, 1, []);

        await connection.SendAsync([
            .. Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndStream, 1, Connection.Get("/")),
            .. Connection.Repeat(Server.EmptyFrameBurst / 2, _ => empty),
            .. Connection.Frame(Http2FrameType.Continuation, Http2FrameFlags.EndHeaders, 1, [])]);

        List<Http2TestFrame> received = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data);
        Assert.Equal(200, connection.Status(received[0]));
    }

    [Fact]
    public async Task ContinuationPastTheBlockLimitEndsTheConnection()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        Task<List<Http2TestFrame>> frames = connection.ReadToEndAsync();
        long before = connection.Sent;

        // Each fragment a full frame of ":method GET" (one byte each): a block that never ends.
        byte[] fragment = Connection.Frame(Http2FrameType.Continuation, 0, 1, Enumerable.Repeat((byte)0x82, Http2Frame.DefaultMaxFrameSize).ToArray());
        await connection.SendAsync([
            .. Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndStream, 1, Connection.Get("/")),
            .. Connection.Repeat(20, _ => fragment)]);

        List<Http2TestFrame> received = await frames;
        Assert.Equal(Http2ErrorCode.EnhanceYourCalm, Assert.Single(received).ErrorCode);
        // Read up to the fragment that passed twice SETTINGS_MAX_HEADER_LIST_SIZE, no further.
        long limit = 2L * s_limits.MaxHeadSize;
        Assert.InRange(connection.Consumed - before, limit, limit + Http2Frame.DefaultMaxFrameSize + (2 * Http2Frame.HeaderLength) + Connection.Get("/").Length);
        AssertHeadBufferBounded(connection);
    }

    [Fact]
    public async Task AnHpackBombGets431AndCostsNoMoreThanTheLimit()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        // One 4000-byte entry, then 3,000 references to it: 12 MB of header list from 7 kB of block (RFC 7541 §7.3).
        byte[] bomb = [
            .. Connection.Get("/"), 0x40, 0x01, (byte)'x', 0x7f, 0xa1, 0x1e, .. Enumerable.Repeat((byte)'x', 4000), .. Enumerable.Repeat((byte)0xBE, 3000)];
        await AssertAnswered431ThenServedAsync(connection, Connection.Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, bomb));
    }

    [Fact]
    public async Task AHeaderListOverTheLimitGets431AcrossContinuation()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        // 16 fields of 3000 bytes, literal without indexing, new names: 48 kB of list, past the 40 kB head limit.
        byte[] block = [.. Connection.Get("/"), .. Connection.Repeat(16, i => [0x00, 0x03, (byte)'x', (byte)'-', (byte)('a' + i), 0x7f, 0xb9, 0x16, .. Enumerable.Repeat((byte)'v', 3000)])];
        var frames = new List<byte>();
        for (int offset = 0; offset < block.Length; offset += Http2Frame.DefaultMaxFrameSize)
        {
            int length = Math.Min(Http2Frame.DefaultMaxFrameSize, block.Length - offset);
            bool last = offset + length == block.Length;
            Http2FrameType type = offset == 0 ? Http2FrameType.Headers : Http2FrameType.Continuation;
            byte flags = (byte)((offset == 0 ? Http2FrameFlags.EndStream : 0) | (last ? Http2FrameFlags.EndHeaders : 0));
            frames.AddRange(Connection.Frame(type, flags, 1, block.AsSpan(offset, length)));
        }

        await AssertAnswered431ThenServedAsync(connection, [.. frames]);
    }

    [Fact]
    public async Task TinyWindowUpdatesEndTheConnectionPastTheirBudget()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();
        Task<List<Http2TestFrame>> frames = connection.ReadToEndAsync();
        long before = connection.Sent;
        byte[] tiny = Connection.WindowUpdate(0, 1);

        await connection.SendAsync(Connection.Repeat(3 * Server.SmallWindowUpdateBurst, _ => tiny));

        List<Http2TestFrame> received = await frames;
        Assert.Equal(Http2ErrorCode.EnhanceYourCalm, Assert.Single(received).ErrorCode);
        Assert.Equal(before + ((Server.SmallWindowUpdateBurst + 1) * tiny.Length), connection.Consumed);
    }

    [Fact]
    public async Task WindowUpdatesOfUsefulSizeAreNotCounted()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        await connection.SendAsync([.. Connection.Repeat(3 * Server.SmallWindowUpdateBurst, _ => Connection.WindowUpdate(0, Server.SmallWindowIncrement)), .. Connection.Ping()]);

        List<Http2TestFrame> received = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        Assert.Single(received);
    }

    [Fact]
    public async Task AResponseHeldByAZeroWindowIsResetWhenTheWindowStaysShut()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));
        await connection.SendAsync(Connection.Request(1, "/size/1000"));
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Headers);
        Assert.Equal(1000, connection.Connection.HeldResponseBytes);

        // Almost the timeout: the stream still waits; other frames do not count as progress.
        connection.Time.Advance(Server.StalledResponseTimeout - TimeSpan.FromSeconds(1));
        await connection.SendAsync(Connection.Ping());
        Assert.Equal(Http2FrameType.Ping, (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping)).Single().Type);

        connection.Time.Advance(TimeSpan.FromSeconds(1));
        Http2TestFrame reset = (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.RstStream)).Single();

        Assert.Equal(1, reset.StreamId);
        Assert.Equal(Http2ErrorCode.Cancel, reset.ErrorCode);
        Assert.Equal(0, connection.Connection.HeldResponseBytes);
        // The connection goes on.
        await connection.SendAsync(Connection.Ping());
        Assert.Single(await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping));
    }

    [Fact]
    public async Task AWindowThatOpensKeepsTheResponseAliveUntilItShuts()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));
        await connection.SendAsync(Connection.Request(1, "/size/1000"));
        await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Headers);
        TimeSpan most = Server.StalledResponseTimeout - TimeSpan.FromSeconds(1);

        for (int round = 0; round < 3; round++)
        {
            connection.Time.Advance(most);
            await connection.SendAsync(Connection.WindowUpdate(1, Server.SmallWindowIncrement / 4));
            Http2TestFrame data = (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data)).Single();
            Assert.Equal(Server.SmallWindowIncrement / 4, data.Payload.Length);
        }

        Assert.Equal(1000 - (3 * Server.SmallWindowIncrement / 4), connection.Connection.HeldResponseBytes);

        // Then the window stays shut a whole timeout from the last bytes sent: the stream is reset.
        connection.Time.Advance(Server.StalledResponseTimeout);
        Http2TestFrame reset = (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.RstStream)).Single();
        Assert.Equal(Http2ErrorCode.Cancel, reset.ErrorCode);
    }

    [Fact]
    public async Task HeldResponseBytesStayBelowTheirLimit()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync((Http2SettingsParameter.InitialWindowSize, 0));
        const int size = 300 * 1024;
        int streams = (int)(Server.MaxHeldResponseBytes / size) + 5;

        await connection.SendAsync([.. Connection.Repeat(streams, i => Connection.Request(Connection.Stream(i), $"/size/{size}")), .. Connection.Ping()]);

        List<Http2TestFrame> received = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        int refused = received.Count(frame => frame is { Type: Http2FrameType.RstStream, ErrorCode: Http2ErrorCode.RefusedStream });
        Assert.Equal(streams - (int)Math.Ceiling((double)Server.MaxHeldResponseBytes / size), refused);
        Assert.InRange(connection.Connection.HeldResponseBytes, Server.MaxHeldResponseBytes, Server.MaxHeldResponseBytes + size);
    }

    [Fact]
    public async Task AStreamNearTheLastIdentifierIsAnsweredThenGoAway()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        // At the threshold: served, and the connection goes on.
        await connection.SendAsync([.. Connection.Request(Server.StreamIdGoAwayThreshold, "/"), .. Connection.Ping()]);
        List<Http2TestFrame> first = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Ping);
        Assert.Equal(200, connection.Status(first[0]));
        Assert.DoesNotContain(first, frame => frame.Type == Http2FrameType.GoAway);

        // Past it: served, then GOAWAY NO_ERROR naming it, so the client moves to a new connection.
        await connection.SendAsync(Connection.Request(Server.StreamIdGoAwayThreshold + 2, "/"));
        List<Http2TestFrame> received = await connection.ReadToEndAsync();

        Assert.Equal(200, connection.Status(received.First(frame => frame.Type == Http2FrameType.Headers)));
        Assert.Equal(Http2ErrorCode.NoError, received[^1].ErrorCode);
        Assert.Equal(Server.StreamIdGoAwayThreshold + 2, received[^1].LastStreamId);
    }

    [Fact]
    public async Task TheLastStreamIdentifierIsAnsweredThenGoAway()
    {
        await using var connection = new Connection(default);
        await connection.StartAsync();

        await connection.SendAsync(Connection.Request(int.MaxValue, "/"));
        List<Http2TestFrame> received = await connection.ReadToEndAsync();

        Assert.Equal(200, connection.Status(received.First(frame => frame.Type == Http2FrameType.Headers)));
        Assert.Equal(Http2ErrorCode.NoError, received[^1].ErrorCode);
        Assert.Equal(int.MaxValue, received[^1].LastStreamId);
    }

    [Fact]
    public async Task RunningOutOfIdentifiersLetsTheStreamsInFlightFinish()
    {
        var gates = new Gates();
        await using var connection = new Connection(new EchoApplication(gates));
        await connection.StartAsync();
        await connection.SendAsync(Connection.Request(1, "/gate/slow"));
        await gates.ReachedAsync("slow");

        // The final GOAWAY of a graceful end (§6.8): the stream in flight is still answered, then the connection closes.
        await connection.SendAsync(Connection.Request(Server.StreamIdGoAwayThreshold + 2, "/"));
        Http2TestFrame goAway = (await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.GoAway))[^1];
        Assert.Equal(Http2ErrorCode.NoError, goAway.ErrorCode);
        Assert.Equal(Server.StreamIdGoAwayThreshold + 2, goAway.LastStreamId);

        gates.Open("slow");
        List<Http2TestFrame> rest = await connection.ReadToEndAsync();
        Assert.Equal("GET /gate/slow ", System.Text.Encoding.ASCII.GetString(Assert.Single(rest, frame => frame.Type == Http2FrameType.Data).Payload));
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    /// <summary>
    /// Sends <paramref name="stream1"/>, a request on stream 1 whose header list is too large, then a plain one on stream
    /// 3: the first gets 431, and the second is answered, so the connection went on with its HPACK state in step.
    /// </summary>
    private static async Task AssertAnswered431ThenServedAsync(Connection connection, byte[] stream1)
    {
        await connection.SendAsync([.. stream1, .. Connection.Request(3, "/")]);

        List<Http2TestFrame> received = await connection.ReadUntilAsync(frame => frame.Type == Http2FrameType.Data && frame.StreamId == 3);
        Assert.Equal(431, connection.Status(received.First(frame => frame.Type == Http2FrameType.Headers && frame.StreamId == 1)));
        Assert.Equal(200, connection.Status(received.First(frame => frame.Type == Http2FrameType.Headers && frame.StreamId == 3)));
        AssertHeadBufferBounded(connection);
    }

    /// <summary>The head buffer grew to no more than twice the head limit, however large the list the client sent.</summary>
    private static void AssertHeadBufferBounded(Connection connection) =>
        Assert.True(connection.Connection.HeadBufferCapacity <= 2 * s_limits.MaxHeadSize, $"{connection.Connection.HeadBufferCapacity} bytes of head buffer");
}
