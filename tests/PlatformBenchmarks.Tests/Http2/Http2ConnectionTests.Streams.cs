using System.Buffers.Binary;
using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.Http2;
using PlatformBenchmarks.Tests.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// Streams answered concurrently, content read by handlers that wait, the graceful GOAWAY and the deadlines, over an
/// in-memory connection with the test application and a fake clock.
/// </summary>
public sealed partial class Http2ConnectionTests
{
    [Fact]
    public async Task AHandlerThatCompletesLaterDoesNotHoldTheStreamsAfterIt()
    {
        var gates = new Gates();
        await using PipeConnection<EchoApplication> connection = await StartPipeAsync(gates);
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, Request("GET", "/gate/late")));
        await gates.ReachedAsync("late");
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 3, Request("GET", "/first")));

        List<Frame> first = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Data && frame.StreamId == 3);
        Assert.DoesNotContain(first, frame => frame.StreamId == 1);
        gates.Open("late");
        List<Frame> second = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Data && frame.StreamId == 1);

        // Each block was encoded as it was written: decoded in the order they came, both are whole and right.
        var decoder = new HpackDecoder(4096, 64 * 1024);
        foreach ((int streamId, string body) in new[] { (3, "GET /first "), (1, "GET /gate/late ") })
        {
            Frame headers = Assert.Single(first.Concat(second), frame => frame.Type == Http2FrameType.Headers && frame.StreamId == streamId);
            (HpackError error, List<(string Name, string Value)> fields) = Hpack.Decode(decoder, headers.Payload);
            Assert.Equal(HpackError.None, error);
            Assert.Contains((":status", "200"), fields);
            Assert.Contains(("content-type", "text/plain"), fields);
            Assert.Contains(("content-length", body.Length.ToString(System.Globalization.CultureInfo.InvariantCulture)), fields);
            Assert.Equal(body, Encoding.ASCII.GetString(first.Concat(second).Single(frame => frame.Type == Http2FrameType.Data && frame.StreamId == streamId).Payload));
        }
    }

    [Fact]
    public async Task StreamsWithHandlersInFlightCountTowardTheConcurrencyLimit()
    {
        var gates = new Gates();
        await using PipeConnection<EchoApplication> connection = await StartPipeAsync(gates);
        for (int i = 0; i < Http2Connection<EchoApplication>.MaxConcurrentStreams; i++)
        {
            await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, (2 * i) + 1, Request("GET", "/gate/all")));
        }

        const int OneTooMany = (2 * Http2Connection<EchoApplication>.MaxConcurrentStreams) + 1;
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, OneTooMany, Request("GET", "/gate/all")));

        List<Frame> refused = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.RstStream);
        Assert.Equal(OneTooMany, refused[^1].StreamId);
        Assert.Equal(Http2ErrorCode.RefusedStream, RstCode(refused[^1]));
        Assert.DoesNotContain(refused, frame => frame.Type == Http2FrameType.Headers);

        gates.Open("all");
        var answered = new HashSet<int>();
        while (answered.Count < Http2Connection<EchoApplication>.MaxConcurrentStreams)
        {
            Frame? frame = await Frame.ReadAsync(connection.Output);
            Assert.NotNull(frame);
            if (frame.Type == Http2FrameType.Data && (frame.Flags & Http2FrameFlags.EndStream) != 0)
            {
                Assert.True(answered.Add(frame.StreamId));
            }
        }
    }

    [Fact]
    public async Task AHandlerThatDoesNotReadGetsNoWindowOpenedAndNoMoreThanTheWindow()
    {
        var gates = new Gates();
        await using PipeConnection<EchoApplication> connection = await StartUnreadUploadAsync(gates);
        await connection.SendAsync(Frame.Ping());

        List<Frame> held = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Ping);
        Assert.DoesNotContain(held, frame => frame.Type == Http2FrameType.WindowUpdate);

        // One byte past the window the server advertised, which it has not opened again (§6.9.1).
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Data, 0, 1, [1]));
        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(connection.Output);
        Assert.Equal(Http2ErrorCode.FlowControlError, GoAwayCode(frames[^1]));
        Assert.True(closed);
    }

    [Fact]
    public async Task TheWindowsOpenAsTheHandlerReads()
    {
        var gates = new Gates();
        await using PipeConnection<EchoApplication> connection = await StartUnreadUploadAsync(gates);

        gates.Open("read");
        List<Frame> updates = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.WindowUpdate && frame.StreamId == 1);
        Assert.Contains(updates, frame => frame.Type == Http2FrameType.WindowUpdate && frame.StreamId == 0);
        await SendContentAsync(connection, 1, 1000, endStream: true);

        List<Frame> frames = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Data && frame.StreamId == 1);
        Assert.Equal((Http2Output.DefaultWindowSize + 1000).ToString(System.Globalization.CultureInfo.InvariantCulture), Encoding.ASCII.GetString(frames[^1].Payload));
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task ContentPastTheResourceLimitGets413(bool announced)
    {
        await using PipeConnection<EchoApplication> connection = await StartPipeAsync(new Gates());
        (string, string)[] fields = announced ? [("content-length", "10")] : [];
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Request("POST", "/limit/5/echo", fields)));
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Data, Http2FrameFlags.EndStream, 1, new byte[10]));

        List<Frame> frames = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Data && frame.StreamId == 1);

        Frame headers = Assert.Single(frames, frame => frame.Type == Http2FrameType.Headers);
        (_, List<(string Name, string Value)> decoded) = Hpack.Decode(new HpackDecoder(4096, 64 * 1024), headers.Payload);
        Assert.Contains((":status", "413"), decoded);
    }

    [Fact]
    public async Task StoppingSendsTwoGoAwaysAndFinishesTheStreamsInFlight()
    {
        var gates = new Gates();
        using var stopping = new CancellationTokenSource();
        await using PipeConnection<EchoApplication> connection = await StartPipeAsync(gates, closeRequested: stopping.Token);
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, Request("GET", "/gate/slow")));
        await gates.ReachedAsync("slow");

        await stopping.CancelAsync();
        List<Frame> announced = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Ping);
        Assert.Equal(int.MaxValue, BinaryPrimitives.ReadInt32BigEndian(announced[^2].Payload));
        Assert.Equal(Http2ErrorCode.NoError, GoAwayCode(announced[^2]));

        // A stream the client opened before it saw the GOAWAY is still taken.
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 3, Request("GET", "/meanwhile")));
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Ping, Http2FrameFlags.Ack, 0, announced[^1].Payload));
        List<Frame> final = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.GoAway);
        Assert.Equal(3, BinaryPrimitives.ReadInt32BigEndian(final[^1].Payload));
        Assert.Contains(final, frame => frame.Type == Http2FrameType.Data && frame.StreamId == 3);

        // Past the final GOAWAY's last stream, a request is ignored; the one in flight is answered, then the connection closes.
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 5, Request("GET", "/ignored")));
        await connection.ExaminedAllSentAsync();
        gates.Open("slow");
        var rest = new List<Frame>();
        while (await Frame.ReadAsync(connection.Output) is Frame frame)
        {
            rest.Add(frame);
        }

        Assert.Equal("GET /gate/slow ", Encoding.ASCII.GetString(Assert.Single(rest, frame => frame.Type == Http2FrameType.Data).Payload));
        Assert.DoesNotContain(rest, frame => frame.StreamId == 5);
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task TheFinalGoAwayFollowsWhenThePingIsNotAnswered()
    {
        using var stopping = new CancellationTokenSource();
        await using PipeConnection<EchoApplication> connection = await StartPipeAsync(new Gates(), closeRequested: stopping.Token);
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, Request("GET", "/answered")));
        await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Data);

        await stopping.CancelAsync();
        await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Ping);
        TimeSpan waited = await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromMilliseconds(100));

        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(connection.Output);
        Assert.Equal(TimeSpan.FromSeconds(1), waited);
        Assert.Equal(1, BinaryPrimitives.ReadInt32BigEndian(frames[^1].Payload));
        Assert.True(closed);
    }

    [Theory]
    [InlineData("preface", (uint)Http2ErrorCode.ProtocolError)]
    [InlineData("settings-ack", (uint)Http2ErrorCode.SettingsTimeout)]
    [InlineData("header-block", (uint)Http2ErrorCode.EnhanceYourCalm)]
    public async Task WhatTheClientOwesMustComeWithinTheHeadersTimeout(string owed, uint code)
    {
        var limits = new HttpLimits { RequestHeadersTimeout = TimeSpan.FromSeconds(5), LingerTimeout = TimeSpan.Zero };
        var connection = new PipeConnection<EchoApplication>(new EchoApplication(new Gates()), limits, http2: true);
        await using (connection)
        {
            if (owed != "preface")
            {
                await connection.SendAsync([.. s_clientPreface, .. Frame.Bytes(Http2FrameType.Settings, 0, 0, [])]);
            }

            if (owed == "header-block")
            {
                await connection.SendAsync(Frame.Bytes(Http2FrameType.Settings, Http2FrameFlags.Ack, 0, []));
                await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndStream, 1, Request("GET", "/never-ends")));
            }

            await connection.ExaminedAllSentAsync();
            TimeSpan waited = await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(1));

            (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(connection.Output);
            Assert.Equal(TimeSpan.FromSeconds(5), waited);
            Assert.Equal((Http2ErrorCode)code, GoAwayCode(frames[^1]));
            Assert.True(closed);
        }
    }

    [Fact]
    public async Task AConnectionWithNoStreamOpenIsClosedAfterTheKeepAliveTimeout()
    {
        var limits = new HttpLimits { Http2KeepAliveTimeout = TimeSpan.FromSeconds(10), LingerTimeout = TimeSpan.Zero };
        await using PipeConnection<EchoApplication> connection = await StartPipeAsync(new Gates(), limits);
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, Request("GET", "/answered")));
        await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Data);

        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromSeconds(4));

        // A PING half way does not keep it open.
        await connection.SendAsync(Frame.Ping());
        await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Ping);
        TimeSpan waited = await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(1));

        (List<Frame> frames, bool closed) = await ReadUntilGoAwayAsync(connection.Output);
        Assert.Equal(TimeSpan.FromSeconds(6), waited);
        Assert.Equal(Http2ErrorCode.NoError, GoAwayCode(frames[^1]));
        Assert.Equal(1, BinaryPrimitives.ReadInt32BigEndian(frames[^1].Payload));
        Assert.True(closed);
    }

    [Fact]
    public async Task AStreamInFlightIsNotIdle()
    {
        var gates = new Gates();
        var limits = new HttpLimits { Http2KeepAliveTimeout = TimeSpan.FromSeconds(10), LingerTimeout = TimeSpan.Zero };
        await using PipeConnection<EchoApplication> connection = await StartPipeAsync(gates, limits);
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, Request("GET", "/gate/long")));
        await gates.ReachedAsync("long");
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromMinutes(5));
        gates.Open("long");

        List<Frame> frames = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Data);
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.GoAway);

        // Its time starts once the stream has ended: a PING's round trip shows the server has seen that.
        await connection.SendAsync(Frame.Ping());
        await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Ping);
        Assert.Equal(TimeSpan.FromSeconds(10), await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(1)));
    }

    /// <summary>An in-memory HTTP/2 connection to <see cref="EchoApplication"/>, past the preface and both SETTINGS.</summary>
    private static async Task<PipeConnection<EchoApplication>> StartPipeAsync(Gates gates, HttpLimits? limits = null, CancellationToken closeRequested = default)
    {
        var connection = new PipeConnection<EchoApplication>(new EchoApplication(gates), limits, closeRequested: closeRequested, http2: true);
        await connection.SendAsync([.. s_clientPreface, .. Frame.Bytes(Http2FrameType.Settings, 0, 0, [])]);
        List<Frame> frames = await ReadUntilAsync(connection.Output, frame => frame.Type == Http2FrameType.Settings && frame.Flags == Http2FrameFlags.Ack);
        Assert.Equal(Http2FrameType.Settings, frames[0].Type);
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Settings, Http2FrameFlags.Ack, 0, []));
        return connection;
    }

    /// <summary>A POST whose handler waits at the gate "read" before it reads, with a whole window of content sent.</summary>
    private static async Task<PipeConnection<EchoApplication>> StartUnreadUploadAsync(Gates gates)
    {
        PipeConnection<EchoApplication> connection = await StartPipeAsync(gates);
        await connection.SendAsync(Frame.Bytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders, 1, Request("POST", "/count-after/read")));
        await gates.ReachedAsync("read");
        await SendContentAsync(connection, 1, Http2Output.DefaultWindowSize, endStream: false);
        return connection;
    }

    /// <summary>Sends <paramref name="length"/> bytes of content on a stream in DATA frames of the default largest size.</summary>
    private static async Task SendContentAsync(PipeConnection<EchoApplication> connection, int streamId, int length, bool endStream)
    {
        while (length > 0)
        {
            int size = Math.Min(length, Http2Frame.DefaultMaxFrameSize);
            length -= size;
            await connection.SendAsync(Frame.Bytes(Http2FrameType.Data, endStream && length == 0 ? Http2FrameFlags.EndStream : (byte)0, streamId, new byte[size]));
        }
    }
}
