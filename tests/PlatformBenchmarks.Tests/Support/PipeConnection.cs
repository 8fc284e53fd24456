using System.IO.Pipelines;
using Microsoft.Extensions.Logging.Abstractions;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>An engine connection over in-memory pipes: request bytes in, response bytes out, no sockets.</summary>
internal sealed class PipeConnection<TApp> : IAsyncDisposable
    where TApp : struct, IHttpApplication
{
    private readonly Pipe _requests = new();
    private readonly Pipe _responses = new();

    public PipeConnection(TApp app, HttpLimits? limits = null, bool transportHalfCloses = false, CancellationToken closeRequested = default)
    {
        // Without limits of its own, a test gets a short linger: after a rejection the engine closes 100 ms after the
        // client's last byte rather than the default 2 s. The lingering tests set their own.
        limits ??= new HttpLimits { LingerTimeout = TimeSpan.FromMilliseconds(100) };
        var connection = new HttpConnection<TApp>(app, new DuplexPipe(_requests.Reader, _responses.Writer), limits, NullLogger.Instance, transportHalfCloses, closeRequested);
        Completion = Task.Run(connection.ExecuteAsync, CancellationToken.None);
        Output = _responses.Reader.AsStream();
    }

    /// <summary>Completes when the engine has closed the connection.</summary>
    public Task Completion { get; }

    public Stream Output { get; }

    public async Task SendAsync(string text)
    {
        await _requests.Writer.WriteAsync(Requests.Bytes(text));
    }

    public async Task SendAsync(byte[] bytes) => await _requests.Writer.WriteAsync(bytes);

    /// <summary>The client half-closes its side.</summary>
    public Task CompleteInputAsync() => _requests.Writer.CompleteAsync().AsTask();

    public Task<RawResponse?> ReadAsync(bool head = false) =>
        RawResponse.ReadAsync(Output, head, new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token);

    /// <summary>True when the engine closed its output with nothing more to read.</summary>
    public async Task<bool> IsClosedAsync()
    {
        var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        byte[] one = new byte[1];
        return await Output.ReadAsync(one, timeout.Token) == 0;
    }

    public async ValueTask DisposeAsync()
    {
        await _requests.Writer.CompleteAsync();
        await Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
