using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>How the engine ends connections: the host stopping, and the order of FIN and linger per transport.</summary>
public class HttpConnectionClosingTests
{
    private static readonly HttpLimits LongLinger = new() { LingerTimeout = TimeSpan.FromSeconds(30), MaxLingerTime = TimeSpan.FromSeconds(60) };

    [Fact]
    public async Task AnIdleKeepAliveConnectionClosesAsSoonAsTheHostAsksConnectionsToClose()
    {
        using var closing = new CancellationTokenSource();
        await using var connection = new PipeConnection<EchoApplication>(default, closeRequested: closing.Token);
        await connection.SendAsync("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
        Assert.Equal("GET /a ", (await connection.ReadAsync())!.BodyText);

        await closing.CancelAsync();

        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(await connection.IsClosedAsync());
    }

    [Fact]
    public async Task ARequestInFlightWhenTheHostAsksToCloseIsAnsweredBeforeTheConnectionCloses()
    {
        using var closing = new CancellationTokenSource();
        var gate = new GatedApplication(new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
        await using var connection = new PipeConnection<GatedApplication>(gate, closeRequested: closing.Token);
        await connection.SendAsync("GET /held HTTP/1.1\r\nHost: t\r\n\r\n");
        await gate.Entered.Task.WaitAsync(TimeSpan.FromSeconds(10));

        await closing.CancelAsync();
        Assert.False(connection.Completion.IsCompleted);
        gate.Release.TrySetResult();

        Assert.Equal("held", (await connection.ReadAsync())!.BodyText);
        Assert.True(await connection.IsClosedAsync());
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task AHandlerWaitingForItsBodyWhenTheHostAsksToCloseGetsItsBodyAndItsAnswerThenTheConnectionCloses()
    {
        // The host's request cancels the read the handler waits on; the body reader reads again, and the input keeps
        // the request to close for the connection loop: what that read holds is answered, then the connection closes.
        using var closing = new CancellationTokenSource();
        await using var connection = new PipeConnection<EchoApplication>(default, closeRequested: closing.Token);
        await connection.SendAsync("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhe");
        await connection.WaitingForInputAsync();

        await closing.CancelAsync();
        await connection.SendAsync("llo" + "GET /behind HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal("hello", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("GET /behind ", (await connection.ReadAsync())!.BodyText);
        Assert.True(await connection.IsClosedAsync());
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task OnAHalfClosingTransportARejectionEndsTheOutputBeforeLingeringOnTheInput()
    {
        // RFC 9112 §9.6: the client sees the 400 and the end of the stream while the server still reads what it sends.
        await using var connection = new PipeConnection<EchoApplication>(default, LongLinger, transportHalfCloses: true);
        await connection.SendAsync("GET /p HTTP/1.1\r\nHost : t\r\n\r\n");

        Assert.Equal(400, (await connection.ReadAsync())!.Status);
        Assert.True(await connection.IsClosedAsync());
        await connection.SendAsync(new byte[64 * 1024]);
        Assert.False(connection.Completion.IsCompleted);

        await connection.CompleteInputAsync();
        await connection.Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task OnKestrelsSocketsTheOutputStaysOpenUntilTheLingerEnds()
    {
        // There, completing the output disposes the socket: the linger comes first, and the end of the output after it.
        await using var connection = new PipeConnection<EchoApplication>(default, LongLinger, transportHalfCloses: false);
        await connection.SendAsync("GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n");
        Assert.Equal("GET /a ", (await connection.ReadAsync())!.BodyText);

        Task<bool> closed = connection.IsClosedAsync();
        await connection.SendAsync(new byte[1024]);
        Assert.False(closed.IsCompleted);

        await connection.CompleteInputAsync();
        Assert.True(await closed);
    }

    /// <summary>Answers "held" once released; <see cref="Entered"/> tells the test the request is in flight.</summary>
    private readonly struct GatedApplication(TaskCompletionSource release) : IHttpApplication
    {
        public TaskCompletionSource Release { get; } = release;

        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public long MaxRequestBodySize(HttpRequest request, long configured) => configured;

        public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
        {
            Entered.TrySetResult();
            return AnswerAsync(response);
        }

        private async ValueTask AnswerAsync(HttpResponse response)
        {
            await Release.Task;
            response.Write(HttpStatus.Ok, "text/plain"u8, "held"u8);
        }
    }
}
