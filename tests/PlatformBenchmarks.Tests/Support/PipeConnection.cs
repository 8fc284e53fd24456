using System.Buffers;
using System.IO.Pipelines;
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

    public PipeConnection(TApp app, HttpLimits? limits = null, bool transportHalfCloses = false, CancellationToken closeRequested = default)
    {
        // Without limits of its own, a test gets no linger: after a rejection the engine closes once it has answered.
        // The lingering tests set their own, and drive the clock through Time.
        limits ??= new HttpLimits { LingerTimeout = TimeSpan.Zero };
        var context = new HttpServerContext(limits, Time, new DateHeader(Time), NullLogger.Instance);
        _input = new ExaminedCountingReader(_requests.Reader);
        var connection = new HttpConnection<TApp>(app, new DuplexPipe(_input, _responses.Writer), context, transportHalfCloses, closeRequested);
        Engine = connection;
        Completion = Task.Run(connection.ExecuteAsync, CancellationToken.None);
        Output = _responses.Reader.AsStream();
    }

    /// <summary>The engine's connection, for the tests that look at what it holds between requests.</summary>
    public HttpConnection<TApp> Engine { get; }

    /// <summary>The connection's clock: it stands still until a test advances it.</summary>
    public FakeTimeProvider Time { get; } = new(new DateTimeOffset(2026, 1, 2, 3, 4, 5, TimeSpan.Zero));

    /// <summary>
    /// Advances the clock by <paramref name="step"/> until <paramref name="task"/> completes (a timer the engine arms
    /// after a read may not be armed yet at the first step). Returns how far the clock moved.
    /// </summary>
    public async Task<TimeSpan> AdvanceUntilAsync(Task task, TimeSpan step, int maxSteps = 1000)
    {
        TimeSpan moved = TimeSpan.Zero;
        for (int i = 0; i < maxSteps && !task.IsCompleted; i++)
        {
            Time.Advance(step);
            moved += step;
            // Let the engine's continuations run; this is a yield to other work, not a wait for time to pass.
            await Task.WhenAny(task, Task.Delay(5));
        }

        Assert.True(task.IsCompleted, $"Still not done after the clock moved {moved}.");
        await task;
        return moved;
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

    /// <summary>The engine's side of the request pipe, counting the bytes the engine has examined.</summary>
    private sealed class ExaminedCountingReader(PipeReader inner) : PipeReader
    {
        private readonly Lock _lock = new();
        private ReadOnlySequence<byte> _buffer;
        private long _consumed;
        private long _examined;
        private TaskCompletionSource _advanced = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public async Task ExaminedAsync(long count)
        {
            while (true)
            {
                Task advanced;
                lock (_lock)
                {
                    if (_examined >= count)
                    {
                        return;
                    }

                    advanced = _advanced.Task;
                }

                // A deadline for a failing test only: the engine advances as soon as it has looked at its input.
                await advanced.WaitAsync(TimeSpan.FromSeconds(10));
            }
        }

        public override async ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
        {
            ReadResult result = await inner.ReadAsync(cancellationToken);
            _buffer = result.Buffer;
            return result;
        }

        public override bool TryRead(out ReadResult result)
        {
            if (!inner.TryRead(out result))
            {
                return false;
            }

            _buffer = result.Buffer;
            return true;
        }

        public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

        public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
        {
            // Offsets within the buffer last read, taken before the pipe may release its memory.
            long consumedLength = _buffer.Slice(0, consumed).Length;
            long examinedLength = _buffer.Slice(0, examined).Length;
            inner.AdvanceTo(consumed, examined);
            TaskCompletionSource advanced;
            lock (_lock)
            {
                _examined = Math.Max(_examined, _consumed + examinedLength);
                _consumed += consumedLength;
                advanced = _advanced;
                _advanced = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            }

            advanced.TrySetResult();
        }

        public override void CancelPendingRead() => inner.CancelPendingRead();

        public override void Complete(Exception? exception = null) => inner.Complete(exception);
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
