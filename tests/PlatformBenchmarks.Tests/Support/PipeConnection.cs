using System.Buffers;
using System.IO.Pipelines;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>An engine connection over in-memory pipes: request bytes in, response bytes out, no sockets.</summary>
internal sealed class PipeConnection<TApp> : IAsyncDisposable
    where TApp : struct, IHttpApplication
{
    private readonly Pipe _requests = new();
    private readonly Pipe _responses = new();
    private readonly ExaminedCountingReader _input;
    private long _sent;

    /// <param name="http2">Run the HTTP/2 codec (a connection of an h2c:// listener) instead of HTTP/1.1's.</param>
    public PipeConnection(TApp app, HttpLimits? limits = null, bool transportHalfCloses = false, ILogger? logger = null, ConnectionLoop loop = default, bool http2 = false, CancellationToken closeRequested = default)
    {
        // Without limits of its own, a test gets no linger: after a rejection the engine closes once it has answered.
        // The lingering tests set their own, and drive the clock through Time.
        limits ??= new HttpLimits { LingerTimeout = TimeSpan.Zero };
        var context = new HttpServerContext(limits, Time, new DateHeader(Time), logger ?? NullLogger.Instance, HeadBuffers);
        _input = new ExaminedCountingReader(_requests.Reader);
        var transport = new DuplexPipe(_input, _responses.Writer);
        Func<Task> execute = http2
            ? new PlatformBenchmarks.Http.Http2.Http2Connection<TApp>(app, transport, context, loop, closeRequested).ExecuteAsync
            : new HttpConnection<TApp>(app, transport, context, transportHalfCloses, loop, closeRequested).ExecuteAsync;
        Completion = Task.Run(execute, CancellationToken.None);
        Output = _responses.Reader.AsStream();
    }

    /// <summary>The pool the connection's parser gathers split heads in: what it holds shows in <see cref="CountingArrayPool.Outstanding"/>.</summary>
    public CountingArrayPool HeadBuffers { get; } = new();

    /// <summary>The connection's clock: it stands still until a test advances it.</summary>
    public FakeTimeProvider Time { get; } = new(new DateTimeOffset(2026, 1, 2, 3, 4, 5, TimeSpan.Zero));

    /// <summary>
    /// Advances the clock by <paramref name="step"/> until it wakes the engine's next read that waits with a timer on
    /// it (the head timeout, the body rate, the linger), and returns how far the clock moved. Each step waits for that read to be
    /// waiting first, so the timer is armed before the clock moves; the timer's callback runs inside the clock's
    /// advance, so no step waits for time to pass. <paramref name="beforeEachStep"/> runs before each step (a client
    /// that keeps sending).
    /// </summary>
    public async Task<TimeSpan> AdvanceUntilTimerFiresAsync(TimeSpan step, Func<Task>? beforeEachStep = null, int maxSteps = 1000)
    {
        TimeSpan moved = TimeSpan.Zero;
        for (int i = 0; i < maxSteps; i++)
        {
            if (beforeEachStep is not null)
            {
                await beforeEachStep();
            }

            PendingRead read = await _input.PendingReadAsync(timed: true);
            Time.Advance(step);
            moved += step;
            if (read.WokenByClock)
            {
                return moved;
            }
        }

        Assert.Fail($"No timer fired after the clock moved {moved}.");
        return moved;
    }

    /// <summary>
    /// Completes once the engine has examined everything sent and waits for more input: a clock moved after this
    /// reaches any timer it armed for that wait.
    /// </summary>
    public async Task WaitingForInputAsync()
    {
        await ExaminedAllSentAsync();
        _ = await _input.PendingReadAsync(timed: false);
    }

    /// <summary>Completes when the engine has closed the connection.</summary>
    public Task Completion { get; }

    public Stream Output { get; }

    public Task SendAsync(string text) => SendAsync(Requests.Bytes(text));

    public async Task SendAsync(byte[] bytes)
    {
        _sent += bytes.Length;
        await _requests.Writer.WriteAsync(bytes);
    }

    /// <summary>
    /// Completes once the engine has examined every byte sent so far, so it is waiting for more: what is sent next
    /// arrives in a read of its own, as a later packet would.
    /// </summary>
    public Task ExaminedAllSentAsync() => _input.ExaminedAsync(_sent);

    /// <summary>The client half-closes its side.</summary>
    public Task CompleteInputAsync() => _requests.Writer.CompleteAsync().AsTask();

    /// <summary>The transport fails: the engine's next read of the input throws <paramref name="fault"/>.</summary>
    public Task FailInputAsync(Exception fault) => _requests.Writer.CompleteAsync(fault).AsTask();

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
}
