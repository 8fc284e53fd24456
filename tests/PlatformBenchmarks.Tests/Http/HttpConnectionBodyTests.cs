using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Testing;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>Request bodies read by handlers as they arrive, and left to the engine when they are not.</summary>
public class HttpConnectionBodyTests
{
    private const string ChunkedBody = "5;name=value\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n000\r\nTrailer-One: 1\r\nTrailer-Two: 2\r\n\r\n";
    private const string ChunkedData = "helloabcdefghijklmnopqrstuvwxyz";
    private const string LengthBody = "The quick brown fox jumps over the lazy dog";
    private const string Continue = "HTTP/1.1 100 Continue\r\n\r\n";

    private static string Get(string target) => $"GET {target} HTTP/1.1\r\nHost: test\r\n\r\n";

    private static string Chunked(string target, string extra = "") => $"POST {target} HTTP/1.1\r\nHost: t\r\n{extra}Transfer-Encoding: chunked\r\n\r\n";

    private static string WithLength(string target, int length, string extra = "") => $"POST {target} HTTP/1.1\r\nHost: t\r\n{extra}Content-Length: {length}\r\n\r\n";

    /// <summary>Each body kind with every point its body can be split at.</summary>
    public static TheoryData<bool, int> SplitPoints()
    {
        var data = new TheoryData<bool, int>();
        foreach (bool chunked in new[] { true, false })
        {
            for (int i = 0; i <= (chunked ? ChunkedBody : LengthBody).Length; i++)
            {
                data.Add(chunked, i);
            }
        }

        return data;
    }

    /// <summary>
    /// Sends a request to <paramref name="target"/> with the chunked or the Content-Length body: its head and the body up
    /// to <paramref name="point"/> in one read, the rest and a pipelined neighbour in the next.
    /// </summary>
    private static async Task SendSplitAsync(PipeConnection<EchoApplication> connection, string target, bool chunked, int point)
    {
        string body = chunked ? ChunkedBody : LengthBody;
        await connection.SendAsync((chunked ? Chunked(target) : WithLength(target, body.Length)) + body[..point]);
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync(body[point..] + Get("/next"));
    }

    [Theory]
    [MemberData(nameof(SplitPoints))]
    public async Task AHandlerReadingItsBodyGetsExactlyTheBodyBytesWhereverTheBodyIsSplit(bool chunked, int point)
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await SendSplitAsync(connection, "/echo", chunked, point);

        Assert.Equal(chunked ? ChunkedData : LengthBody, (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Theory]
    [InlineData("/p", true, 0)]
    [InlineData("/p", true, 9)]
    [InlineData("/p", true, 40)]
    [InlineData("/first/3", true, 0)]
    [InlineData("/first/3", true, 9)]
    [InlineData("/first/3", true, 40)]
    [InlineData("/p", false, 0)]
    [InlineData("/p", false, 20)]
    [InlineData("/first/3", false, 0)]
    [InlineData("/first/3", false, 20)]
    public async Task WhatAHandlerLeavesOfItsBodyIsDiscardedAndThePipelinedNeighbourIsAnswered(string target, bool chunked, int point)
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await SendSplitAsync(connection, target, chunked, point);

        string expected = target == "/p" ? "POST /p " : chunked ? "hel" : "The";
        Assert.Equal(expected, (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task ExpectContinueGets100ContinueWhenTheHandlerStartsReadingThenTheAnswer()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(WithLength("/echo", 5, "Expect: 100-continue\r\n"));

        byte[] interim = new byte[Continue.Length];
        await connection.Output.ReadExactlyAsync(interim, new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token);
        Assert.Equal(Continue, Requests.Text(interim));

        await connection.SendAsync("hello" + Get("/next"));
        RawResponse answer = (await connection.ReadAsync())!;
        Assert.Equal("hello", answer.BodyText);
        Assert.Null(answer.Header("Connection"));
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Theory]
    [InlineData("Content-Length: 5\r\n")]
    [InlineData("Transfer-Encoding: chunked\r\n")]
    public async Task ExpectContinueGetsNo100WhenTheHandlerAnswersWithoutReadingAndTheConnectionCloses(string framing)
    {
        // RFC 9110 §10.1.1: the client need not send a body it was not asked for, so the engine cannot wait to drain it.
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync($"POST /upload HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n{framing}\r\n");

        RawResponse answer = (await connection.ReadAsync())!;
        Assert.Equal(200, answer.Status);
        Assert.Equal("POST /upload ", answer.BodyText);
        Assert.Equal("close", answer.Header("Connection"));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AFramingErrorInTheMiddleOfABodyTheHandlerReadsGets400AndCloses()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Chunked("/echo") + "5\r\nhello\r\n");
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync("zz\r\n" + Get("/never"));

        RawResponse rejected = (await connection.ReadAsync())!;
        Assert.Equal(400, rejected.Status);
        Assert.Equal("Malformed chunked body.\n", rejected.BodyText);
        Assert.Equal("close", rejected.Header("Connection"));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AChunkedBodyPassingTheLimitWhileTheHandlerReadsItGets413()
    {
        var limits = new HttpLimits { MaxRequestBodySize = 10, LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(Chunked("/echo") + "6\r\nabcdef\r\n");
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync("6\r\nghijkl\r\n0\r\n\r\n");

        RawResponse rejected = (await connection.ReadAsync())!;
        Assert.Equal(413, rejected.Status);
        Assert.Equal("close", rejected.Header("Connection"));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AContentLengthPastTheLimitGets413BeforeTheHandlerRuns()
    {
        var limits = new HttpLimits { MaxRequestBodySize = 10, LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(WithLength("/throw", 11) + "abcdefghijk");

        RawResponse rejected = (await connection.ReadAsync())!;
        Assert.Equal(413, rejected.Status);
        Assert.Equal("Request body too large.\n", rejected.BodyText);
        Assert.True(await connection.IsClosedAsync());
    }

    [Theory]
    [InlineData(false, 20, 200)]
    [InlineData(true, 20, 200)]
    [InlineData(false, 21, 413)]
    [InlineData(true, 21, 413)]
    public async Task AResourceWithALimitOfItsOwnIsHeldToThatOneAndNotTheConfiguredOne(bool chunked, int length, int status)
    {
        var limits = new HttpLimits { MaxRequestBodySize = 10, LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        string body = new('x', length);
        await connection.SendAsync(chunked ? Chunked("/limit/20/echo") + $"{length:x}\r\n{body}\r\n0\r\n\r\n" : WithLength("/limit/20/echo", length) + body);

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(status, response.Status);
        Assert.Equal(status == 200 ? body : "Request body too large.\n", response.BodyText);
    }

    [Fact]
    public async Task AHandlerWaitingForBodyBytesThatDoNotComeGets408()
    {
        var limits = new HttpLimits { MinRequestBodyDataRateGracePeriod = TimeSpan.FromSeconds(30), LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(WithLength("/echo", 10) + "abc");

        Assert.Equal(limits.MinRequestBodyDataRateGracePeriod, await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(408, (await connection.ReadAsync())!.Status);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AnUploadFarLongerThanTheHeadTimeoutSucceedsAtASteadyModestRate()
    {
        // 256 MiB at 64 KiB per 100 ms of the clock (640 KiB/s): about 410 s, far past the 30 s a head may take.
        const long Size = 256L * 1024 * 1024;
        const int Piece = 64 * 1024;
        await using var connection = new PipeConnection<EchoApplication>(default, new HttpLimits { MaxRequestBodySize = Size, LingerTimeout = TimeSpan.Zero });
        await connection.SendAsync(WithLength("/count", (int)Size));
        byte[] piece = new byte[Piece];
        for (long sent = 0; sent < Size; sent += Piece)
        {
            await connection.WaitingForInputAsync();
            connection.Time.Advance(TimeSpan.FromMilliseconds(100));
            await connection.SendAsync(piece);
        }

        await connection.SendAsync(Get("/next"));
        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(200, response.Status);
        Assert.Equal(Size.ToString(System.Globalization.CultureInfo.InvariantCulture), response.BodyText);
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task AnUploadThatStallsGets408OnceItsRateFallsBelowTheMinimumAndTheConnectionCloses()
    {
        // 240 bytes/s after 5 s of grace: 4 KiB sent in the first 4 s of waiting pays for 4096 / 240 = 17.07 s of it,
        // so the stalled body runs out 13.07 s into the silence, at the 14th second of the clock.
        var limits = new HttpLimits { MinRequestBodyDataRate = 240, MinRequestBodyDataRateGracePeriod = TimeSpan.FromSeconds(5), LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(WithLength("/count", 1024 * 1024));
        for (int i = 0; i < 4; i++)
        {
            await connection.WaitingForInputAsync();
            connection.Time.Advance(TimeSpan.FromSeconds(1));
            await connection.SendAsync(new byte[1024]);
        }

        await connection.WaitingForInputAsync();
        Assert.Equal(TimeSpan.FromSeconds(14), await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(1)));
        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(408, response.Status);
        Assert.Equal("close", response.Header("Connection"));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task TimeTheHandlerSpendsNotReadingDoesNotCountAgainstTheClient()
    {
        // The handler does other work for an hour before it reads: only the time it waits for body bytes is on the clock.
        var gates = new Gates();
        var limits = new HttpLimits { LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(new EchoApplication(gates), limits);
        await connection.SendAsync(WithLength("/count-after/work", 10) + "abc");
        await gates.ReachedAsync("work");
        connection.Time.Advance(TimeSpan.FromHours(1));
        gates.Open("work");

        // Within the grace period of its own waiting, the rest of the body comes.
        await connection.WaitingForInputAsync();
        connection.Time.Advance(limits.MinRequestBodyDataRateGracePeriod - TimeSpan.FromSeconds(1));
        await connection.SendAsync("defghij");
        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(200, response.Status);
        Assert.Equal("10", response.BodyText);
    }

    [Fact]
    public async Task ABodyRateOf0LeavesABodyWaitUntimed()
    {
        var limits = new HttpLimits { MinRequestBodyDataRate = 0, LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(WithLength("/echo", 5) + "he");
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromHours(1));

        await connection.SendAsync("llo");
        Assert.Equal("hello", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task AHandlerThatFailsInsideItsBodyGets500TheRestIsDiscardedAndThePipelinedNeighbourIsAnswered()
    {
        var log = new FakeLogger();
        await using var connection = new PipeConnection<EchoApplication>(default, logger: log);
        await connection.SendAsync(WithLength("/throw-after/3", 10) + "abcd");
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync("efghij" + Get("/next"));

        RawResponse failed = (await connection.ReadAsync())!;
        Assert.Equal(500, failed.Status);
        Assert.Null(failed.Header("Connection"));
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);

        // The head was gone by the time the handler failed: the route is the copy taken when it was dispatched.
        FakeLogRecord error = Assert.Single(log.Collector.GetSnapshot(), record => record.Level == LogLevel.Error);
        Assert.Equal("Unhandled application error in POST /throw-after/3", error.Message);
    }

    [Fact]
    public async Task ATransportFaultWhileAHandlerWaitsForItsBodyEndsTheConnectionWithoutAnAnswerOrAnError()
    {
        var log = new FakeLogger();
        await using var connection = new PipeConnection<EchoApplication>(default, logger: log);
        await connection.SendAsync(Get("/before") + WithLength("/throw-after/8", 10) + "abc");
        Assert.Equal("GET /before ", (await connection.ReadAsync())!.BodyText);
        await connection.WaitingForInputAsync();

        await connection.FailInputAsync(new Microsoft.AspNetCore.Connections.ConnectionResetException("Reset by peer."));
        Assert.Null(await connection.ReadAsync());
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.DoesNotContain(log.Collector.GetSnapshot(), record => record.Level >= LogLevel.Warning);
    }

    [Fact]
    public async Task AMalformedBodyNobodyReadsClosesTheConnectionAfterItsAnswerWithoutASecondOne()
    {
        // The handler answered from the head; the next request cannot be found behind a broken body (RFC 9112 §9.6).
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Chunked("/p") + "5\r\nhello\r\nzz\r\n" + Get("/never"));

        Assert.Equal("POST /p ", (await connection.ReadAsync())!.BodyText);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AnUnreadBodyThatStopsArrivingAfterItsAnswerClosesTheConnectionWithoutASecondAnswer()
    {
        var limits = new HttpLimits { MinRequestBodyDataRateGracePeriod = TimeSpan.FromSeconds(30), LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(WithLength("/p", 10) + "abc");
        Assert.Equal("POST /p ", (await connection.ReadAsync())!.BodyText);

        Assert.Equal(limits.MinRequestBodyDataRateGracePeriod, await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(10)));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AClientThatClosesInsideTheBodyTheHandlerReadsGetsNoAnswer()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/before") + WithLength("/echo", 10) + "abc");
        Assert.Equal("GET /before ", (await connection.ReadAsync())!.BodyText);

        await connection.CompleteInputAsync();
        Assert.Null(await connection.ReadAsync());
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task AnEarlierPipelinedAnswerIsSentBeforeTheHandlerWaitsForItsBody()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/before") + WithLength("/echo", 5) + "he");

        Assert.Equal("GET /before ", (await connection.ReadAsync())!.BodyText);
        await connection.SendAsync("llo");
        Assert.Equal("hello", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task ALargeBodyIsHandedOutThroughManyReadsAsItArrives()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        int size = 256 * 1024;
        byte[] body = new byte[size];
        for (int i = 0; i < size; i++)
        {
            body[i] = (byte)('a' + (i % 26));
        }

        await connection.SendAsync(WithLength("/echo", size));
        for (int sent = 0; sent < size; sent += 16 * 1024)
        {
            await connection.SendAsync(body[sent..(sent + (16 * 1024))]);
        }

        await connection.SendAsync(Get("/next"));
        Assert.Equal(body, (await connection.ReadAsync())!.Body);
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }
}
