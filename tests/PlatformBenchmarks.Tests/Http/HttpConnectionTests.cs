using System.Text;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Testing;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

public class HttpConnectionTests
{
    private static string Get(string target, string extra = "") => $"GET {target} HTTP/1.1\r\nHost: test\r\n{extra}\r\n";

    [Fact]
    public async Task PipelinedRequestsAreAnsweredInOrder()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(string.Concat(Enumerable.Range(0, 16).Select(i => Get($"/r{i}?n={i}"))));

        for (int i = 0; i < 16; i++)
        {
            RawResponse response = (await connection.ReadAsync())!;
            Assert.Equal(200, response.Status);
            Assert.Equal($"GET /r{i} n={i}", response.BodyText);
        }
    }

    [Fact]
    public async Task AsynchronousAnswersKeepRequestOrder()
    {
        var gates = new Gates();
        await using var connection = new PipeConnection<EchoApplication>(new EchoApplication(gates));
        await connection.SendAsync(Get("/gate/a") + Get("/fast") + Get("/gate/b") + Get("/fast2"));

        // Each gated answer is still pending when the engine dispatches it, in the middle of one read.
        await gates.ReachedAsync("a");
        gates.Open("a");
        await gates.ReachedAsync("b");
        gates.Open("b");

        Assert.Equal("GET /gate/a ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /fast ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /gate/b ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /fast2 ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task RequestWrittenOneByteAtATimeIsAnswered()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        foreach (byte b in Requests.Bytes(Get("/bytes?x=1")))
        {
            await connection.SendAsync([b]);
        }

        Assert.Equal("GET /bytes x=1", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task ConnectionCloseIsAnsweredThenTheConnectionCloses()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/a", "Connection: close\r\n") + Get("/never"));

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal("close", response.Header("Connection"));
        Assert.Equal("GET /a ", response.BodyText);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task Http10ClosesUnlessItAskedForKeepAlive()
    {
        await using (var connection = new PipeConnection<EchoApplication>(default))
        {
            await connection.SendAsync("GET /ka HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /then HTTP/1.0\r\n\r\n");
            RawResponse first = (await connection.ReadAsync())!;
            Assert.Equal("keep-alive", first.Header("Connection"));
            RawResponse second = (await connection.ReadAsync())!;
            Assert.Equal("close", second.Header("Connection"));
            Assert.Equal("GET /then ", second.BodyText);
            Assert.True(await connection.IsClosedAsync());
        }
    }

    [Fact]
    public async Task HeadGetsTheFieldsOfGetWithoutTheBody()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync("HEAD /h HTTP/1.1\r\nHost: test\r\n\r\n" + Get("/after"));

        RawResponse head = (await connection.ReadAsync(head: true))!;
        Assert.Equal("8", head.Header("Content-Length"));
        Assert.Equal("GET /after ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task ContentLengthBodyIsSkippedAndTheNextRequestIsAnswered()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync("POST /p HTTP/1.1\r\nHost: test\r\nContent-Length: 12\r\n\r\nGET /fake/\r\n" + Get("/next"));

        Assert.Equal("POST /p ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task BodyArrivingInPiecesIsSkippedBeforeTheNextRequest()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        // Each piece is sent once the engine has read the one before: three reads, the body and trailer split across them.
        await connection.SendAsync("POST /p HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhel");
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync("lo\r\n0\r\nTrailer: x\r\n");
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync("\r\n" + Get("/next"));

        Assert.Equal("POST /p ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task AHeadSpanningBufferSegmentsLeavesNoBufferHeldOnceItIsAnswered()
    {
        // Longer than a pipe segment, so the parser gathers it in a scratch buffer: a connection must not keep that
        // buffer for the rest of its life, or idle connections that once split a head pin one each.
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/long", $"X-Long: {new string('a', 6000)}\r\n"));

        Assert.Equal("GET /long ", (await connection.ReadAsync())!.BodyText);
        Assert.True(connection.HeadBuffers.Rented > 0);
        Assert.Equal(0, connection.HeadBuffers.Outstanding);
    }

    [Fact]
    public async Task AHeadSpanningBufferSegmentsIsGivenBackOnceAnsweredWhileItsBodyIsStillArriving()
    {
        // The request is answered from its head; the body its handler did not read is discarded as it comes.
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync($"POST /late HTTP/1.1\r\nHost: test\r\nX-Long: {new string('a', 6000)}\r\nContent-Length: 5\r\n\r\nhe");

        Assert.Equal("POST /late ", (await connection.ReadAsync())!.BodyText);
        await connection.ExaminedAllSentAsync();
        Assert.True(connection.HeadBuffers.Rented > 0);
        Assert.Equal(0, connection.HeadBuffers.Outstanding);

        await connection.SendAsync("llo" + Get("/next"));
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal(0, connection.HeadBuffers.Outstanding);
    }

    [Fact]
    public async Task LargeBodyWithinTheLimitIsSkipped()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        int size = 1024 * 1024;
        await connection.SendAsync($"PUT /big HTTP/1.1\r\nHost: test\r\nContent-Length: {size}\r\n\r\n");
        for (int sent = 0; sent < size; sent += 64 * 1024)
        {
            await connection.SendAsync(new byte[64 * 1024]);
        }

        await connection.SendAsync(Get("/next"));

        Assert.Equal("PUT /big ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task BadRequestIsAnsweredWithItsReasonThenClosedAfterEarlierResponses()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/ok") + "GET /bad HTTP/1.1\r\nHost : x\r\n\r\n" + Get("/never"));

        Assert.Equal("GET /ok ", (await connection.ReadAsync())!.BodyText);
        RawResponse bad = (await connection.ReadAsync())!;
        Assert.Equal(400, bad.Status);
        Assert.Equal("close", bad.Header("Connection"));
        Assert.Equal("Malformed header name.\n", bad.BodyText);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AFragmentInTheTargetIsAnswered400WithItsReasonAfterTheRequestBeforeIt()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/ok?a=1") + Get("/path#frag") + Get("/never"));

        Assert.Equal("GET /ok a=1", (await connection.ReadAsync())!.BodyText);
        RawResponse bad = (await connection.ReadAsync())!;
        Assert.Equal(400, bad.Status);
        Assert.Equal("close", bad.Header("Connection"));
        Assert.Equal("A fragment ('#') is not part of a request target.\n", bad.BodyText);
        Assert.True(await connection.IsClosedAsync());
    }

    [Theory]
    [InlineData("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400)]
    [InlineData("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n", 400)]
    [InlineData("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n100001\r\n", 413)]
    [InlineData("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n", 413)]
    [InlineData("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 999999999\r\n\r\n", 413)] // Http11Probe's MAL-POST-CL-HUGE-NO-BODY
    [InlineData("GET /p HTTP/3.0\r\nHost: t\r\n\r\n", 505)]
    public async Task InvalidBodyOrVersionGetsItsStatusAndCloses(string request, int status)
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(request);

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(status, response.Status);
        Assert.Equal("text/plain; charset=utf-8", response.Header("Content-Type"));
        Assert.NotEmpty(response.Body);
        Assert.True(await connection.IsClosedAsync());
    }

    [Theory]
    [InlineData("/throw")]
    [InlineData("/throw/io")]
    [InlineData("/throw/missing")]
    [InlineData("/late-throw/io")]
    [InlineData("/late-throw/missing")]
    public async Task AnyExceptionFromAHandlerAnswers500AndTheConnectionGoesOn(string target)
    {
        // An IOException or a FileNotFoundException from a handler is the application's failure, not the peer leaving:
        // only a fault of the connection's own reads and writes means that.
        var log = new FakeLogger();
        await using var connection = new PipeConnection<EchoApplication>(default, logger: log);
        await connection.SendAsync(Get("/one") + Get(target + "?secret=1") + Get("/after"));

        Assert.Equal("GET /one ", (await connection.ReadAsync())!.BodyText);
        RawResponse failed = (await connection.ReadAsync())!;
        Assert.Equal(500, failed.Status);
        Assert.Equal("Internal server error.\n", failed.BodyText);
        Assert.Null(failed.Header("Connection"));
        Assert.Equal("GET /after ", (await connection.ReadAsync())!.BodyText);

        FakeLogRecord error = Assert.Single(log.Collector.GetSnapshot(), record => record.Level == LogLevel.Error);
        Assert.Equal($"Unhandled application error in GET {target}", error.Message);
        Assert.NotNull(error.Exception);
    }

    [Fact]
    public async Task LateApplicationFailureAnswers500InOrderAndTheConnectionGoesOn()
    {
        var gates = new Gates();
        await using var connection = new PipeConnection<EchoApplication>(new EchoApplication(gates));
        await connection.SendAsync(Get("/one") + Get("/gate/throw") + Get("/after"));
        await gates.ReachedAsync("throw");
        gates.Open("throw");

        Assert.Equal("GET /one ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal(500, (await connection.ReadAsync())!.Status);
        Assert.Equal("GET /after ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task AFailingHandlerOnAConnectionCloseRequestStillClosesAfterIts500()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/throw/io", "Connection: close\r\n"));

        RawResponse failed = (await connection.ReadAsync())!;
        Assert.Equal(500, failed.Status);
        Assert.Equal("close", failed.Header("Connection"));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task TheRouteOfAFailureIsLoggedWithinItsBoundsWhateverTheTargetsLength()
    {
        var log = new FakeLogger();
        await using var connection = new PipeConnection<EchoApplication>(default, logger: log);
        string longPath = "/late-throw/io" + new string('x', 1000);
        await connection.SendAsync(Get(longPath) + Get("/after"));

        Assert.Equal(500, (await connection.ReadAsync())!.Status);
        Assert.Equal("GET /after ", (await connection.ReadAsync())!.BodyText);
        FakeLogRecord error = Assert.Single(log.Collector.GetSnapshot(), record => record.Level == LogLevel.Error);
        Assert.StartsWith("Unhandled application error in GET /late-throw/ioxxx", error.Message, StringComparison.Ordinal);
        Assert.True(error.Message.Length < 300, error.Message);
    }

    [Fact]
    public async Task UnansweredRequestGets500()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/silent"));

        Assert.Equal(500, (await connection.ReadAsync())!.Status);
    }

    [Fact]
    public async Task AnUnansweredRequestInTheMiddleOfAReadGets500AfterTheAnswersBeforeItAndEndsTheConnection()
    {
        // One write, so the requests share a read: the ones before it are answered, nothing after it is.
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/one") + Get("/two") + Get("/silent") + Get("/never"));

        Assert.Equal("GET /one ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /two ", (await connection.ReadAsync())!.BodyText);
        RawResponse unanswered = (await connection.ReadAsync())!;
        Assert.Equal(500, unanswered.Status);
        Assert.Equal("close", unanswered.Header("Connection"));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task AConnectionCloseInTheMiddleOfAReadIsTheLastRequestAnswered()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/one") + Get("/two", "Connection: close\r\n") + Get("/never"));

        Assert.Equal("GET /one ", (await connection.ReadAsync())!.BodyText);
        RawResponse last = (await connection.ReadAsync())!;
        Assert.Equal("GET /two ", last.BodyText);
        Assert.Equal("close", last.Header("Connection"));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task RequestThatStopsArrivingGets408()
    {
        var limits = new HttpLimits { RequestHeadersTimeout = TimeSpan.FromSeconds(30), LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(Get("/ok") + "GET /stuck HTTP/1.1\r\nHo");

        Assert.Equal("GET /ok ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal(limits.RequestHeadersTimeout, await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(10)));
        RawResponse timedOut = (await connection.ReadAsync())!;
        Assert.Equal(408, timedOut.Status);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task EveryRequestOfAKeepAliveConnectionHasTheWholeHeadTimeout()
    {
        // Each read ends inside the next pipelined request, so the input never runs dry; the requests come every 2 s
        // for much longer than the head timeout, and each head takes 2 s, well within it.
        var limits = new HttpLimits { RequestHeadersTimeout = TimeSpan.FromSeconds(30), LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        const int Count = 40;
        string Request(int i) => Get($"/r{i}");
        for (int i = 0; i < Count; i++)
        {
            string previousTail = i == 0 ? "" : Request(i - 1)[10..];
            await connection.SendAsync(previousTail + Request(i)[..10]);
            await connection.WaitingForInputAsync();
            connection.Time.Advance(TimeSpan.FromSeconds(2));
        }

        await connection.SendAsync(Request(Count - 1)[10..]);
        for (int i = 0; i < Count; i++)
        {
            RawResponse response = (await connection.ReadAsync())!;
            Assert.Equal(200, response.Status);
            Assert.Equal($"GET /r{i} ", response.BodyText);
        }
    }

    [Fact]
    public async Task AHeadTimeoutCountsFromTheHeadsFirstByte()
    {
        // The head that comes behind an answered request in the same read starts its time there, not at the
        // connection's first partial read.
        var limits = new HttpLimits { RequestHeadersTimeout = TimeSpan.FromSeconds(30), LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync("GET /a HT");
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromSeconds(20));
        await connection.SendAsync("TP/1.1\r\nHost: t\r\n\r\nGET /stuck HT");
        Assert.Equal("GET /a ", (await connection.ReadAsync())!.BodyText);

        Assert.Equal(limits.RequestHeadersTimeout, await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(5)));
        Assert.Equal(408, (await connection.ReadAsync())!.Status);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task IdleKeepAliveConnectionIsNotTimedOut()
    {
        // TFB forbids a maximum keep-alive time; only a request that started arriving is on the clock.
        var limits = new HttpLimits { RequestHeadersTimeout = TimeSpan.FromSeconds(1) };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync(Get("/one"));
        Assert.Equal("GET /one ", (await connection.ReadAsync())!.BodyText);

        // The engine waits for the next request before the clock moves: a timer it armed for that wait would fire.
        await connection.WaitingForInputAsync();
        connection.Time.Advance(TimeSpan.FromHours(1));
        await connection.SendAsync(Get("/two"));
        Assert.Equal("GET /two ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task AfterARejectionTheConnectionReadsAndDropsInputUntilTheClientCloses()
    {
        var limits = new HttpLimits { LingerTimeout = TimeSpan.FromSeconds(30), MaxLingerTime = TimeSpan.FromSeconds(60) };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n");
        Assert.Equal(413, (await connection.ReadAsync())!.Status);

        // The refused body keeps coming: it is read (so the writes are not held back by an unread pipe) and dropped.
        for (int i = 0; i < 32; i++)
        {
            await connection.SendAsync(new byte[64 * 1024]);
        }

        Assert.False(connection.Completion.IsCompleted);
        await connection.CompleteInputAsync();
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task LingeringEndsOnceTheClientHasBeenSilentForTheLingerTimeout()
    {
        var limits = new HttpLimits { LingerTimeout = TimeSpan.FromSeconds(2), MaxLingerTime = TimeSpan.FromSeconds(60) };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync("GET /p HTTP/1.1\r\nHost : t\r\n\r\n");

        Assert.Equal(400, (await connection.ReadAsync())!.Status);
        Assert.False(connection.Completion.IsCompleted);
        Assert.Equal(limits.LingerTimeout, await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromMilliseconds(500)));
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task LingeringEndsAtTheMaxLingerTimeHoweverLongTheClientKeepsSending()
    {
        var limits = new HttpLimits { LingerTimeout = TimeSpan.FromSeconds(30), MaxLingerTime = TimeSpan.FromSeconds(5) };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync("GET /p HTTP/1.1\r\nHost : t\r\n\r\n");
        Assert.Equal(400, (await connection.ReadAsync())!.Status);

        // The client never goes silent for the linger timeout: a byte, read by the engine, every second of the clock.
        TimeSpan moved = await connection.AdvanceUntilTimerFiresAsync(TimeSpan.FromSeconds(1), async () =>
        {
            await connection.SendAsync("x");
            await connection.ExaminedAllSentAsync();
        });

        Assert.Equal(limits.MaxLingerTime, moved);
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task AConnectionCloseRequestWithNothingBehindItClosesWithoutLingering()
    {
        // An HTTP/1.0 or Connection: close client that sent one request often waits for the server to close before it
        // moves on: keeping it waiting would cost every such request the linger timeout.
        var limits = new HttpLimits { LingerTimeout = TimeSpan.FromSeconds(30), MaxLingerTime = TimeSpan.FromSeconds(60) };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync("GET /a HTTP/1.0\r\n\r\n");

        Assert.Equal("GET /a ", (await connection.ReadAsync())!.BodyText);
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(5));
    }

    [Fact]
    public async Task HalfClosedClientGetsEveryCompleteAnswerThenTheConnectionCloses()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/a") + Get("/b") + "GET /partial HT");
        await connection.CompleteInputAsync();

        Assert.Equal("GET /a ", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /b ", (await connection.ReadAsync())!.BodyText);
        Assert.True(await connection.IsClosedAsync());
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(5));
    }

    [Fact]
    public async Task ResponseIsComposedFromItsFields()
    {
        // Every field follows its own input, byte for byte: Date the connection's clock, the status line and Content-Type
        // the handler, Content-Length the body written, Connection the request's version and wish. A stored header
        // block would repeat the first response's fields in all the others.
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/fields"));
        Assert.Equal(
            "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: Fri, 02 Jan 2026 03:04:05 GMT\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nGET /fields ",
            (await connection.ReadAsync())!.Text);

        connection.Time.Advance(TimeSpan.FromSeconds(1));
        await connection.SendAsync("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nhello");
        Assert.Equal(
            "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: Fri, 02 Jan 2026 03:04:06 GMT\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\n\r\nhello",
            (await connection.ReadAsync())!.Text);

        await connection.SendAsync("HEAD /a-longer-path HTTP/1.1\r\nHost: test\r\n\r\n");
        Assert.Equal(
            "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: Fri, 02 Jan 2026 03:04:06 GMT\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n\r\n",
            (await connection.ReadAsync(head: true))!.Text);

        await connection.SendAsync("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        Assert.Equal(
            "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: Fri, 02 Jan 2026 03:04:06 GMT\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: keep-alive\r\n\r\nGET /old ",
            (await connection.ReadAsync())!.Text);

        connection.Time.Advance(TimeSpan.FromMinutes(61));
        await connection.SendAsync(Get("/silent", "Connection: close\r\n"));
        Assert.Equal(
            "HTTP/1.1 500 Internal Server Error\r\nServer: PB\r\nDate: Fri, 02 Jan 2026 04:05:06 GMT\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 30\r\nConnection: close\r\n\r\nThe request was not answered.\n",
            (await connection.ReadAsync())!.Text);
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task TheDateFieldIsTheConnectionClocksTimeAndFollowsItEverySecond()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get("/a"));
        Assert.Equal("Fri, 02 Jan 2026 03:04:05 GMT", (await connection.ReadAsync())!.Header("Date"));

        connection.Time.Advance(TimeSpan.FromSeconds(1));
        await connection.SendAsync(Get("/b"));
        Assert.Equal("Fri, 02 Jan 2026 03:04:06 GMT", (await connection.ReadAsync())!.Header("Date"));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(3990)]
    [InlineData(4096)]
    [InlineData(70000)]
    public async Task BodiesOfAnySizeAreFramedExactly(int size)
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync(Get($"/size/{size}") + $"HEAD /size/{size} HTTP/1.1\r\nHost: t\r\n\r\n" + Get("/after"));

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(size.ToString(System.Globalization.CultureInfo.InvariantCulture), response.Header("Content-Length"));
        Assert.Equal(size, response.Body.Length);
        Assert.All(response.Body.Select((b, i) => (b, i)), x => Assert.Equal((byte)('a' + (x.i % 26)), x.b));
        RawResponse head = (await connection.ReadAsync(head: true))!;
        Assert.Equal(response.Header("Content-Length"), head.Header("Content-Length"));
        Assert.Equal("GET /after ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task ExpectContinueWithTheBodyAlreadySentGetsOnlyTheFinalResponseAndTheConnectionStaysOpen()
    {
        await using var connection = new PipeConnection<EchoApplication>(default);
        await connection.SendAsync("POST /upload HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello" + Get("/next"));

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(200, response.Status);
        Assert.Equal("POST /upload ", response.BodyText);
        Assert.Null(response.Header("Connection"));
        Assert.Equal("GET /next ", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task TlsHandshakeOnThePlainPortGetsA400AtOnce()
    {
        // The connection's clock stands still, so no timeout can fire: a 400 that arrives came from the first byte.
        var limits = new HttpLimits { LingerTimeout = TimeSpan.Zero };
        await using var connection = new PipeConnection<EchoApplication>(default, limits);
        await connection.SendAsync([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(400, response.Status);
        Assert.Equal("close", response.Header("Connection"));
        Assert.Equal("Malformed method token.\n", response.BodyText);
        Assert.True(await connection.IsClosedAsync());
    }
}
