using System.Buffers;
using System.IO.Pipelines;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>The engine's side of the request pipe, counting the bytes the engine has examined.</summary>
internal sealed class ExaminedCountingReader(PipeReader inner) : PipeReader
{
    private readonly Lock _lock = new();
    private ReadOnlySequence<byte> _buffer;
    private long _consumed;
    private long _examined;
    private TaskCompletionSource _advanced = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private PendingRead? _pending;
    private TaskCompletionSource _started = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>The bytes the engine has consumed so far.</summary>
    public long Consumed
    {
        get
        {
            lock (_lock)
            {
                return _consumed;
            }
        }
    }

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

    /// <summary>
    /// The engine's read that is waiting for input now (one with a timer when <paramref name="timed"/>), or the next
    /// one. A deadline for a failing test only: the engine waits for input as soon as it has handled what it has.
    /// </summary>
    public async Task<PendingRead> PendingReadAsync(bool timed)
    {
        while (true)
        {
            Task next;
            lock (_lock)
            {
                if (_pending is { Ended: false, WokenByClock: false } pending && (pending.Timed || !timed))
                {
                    return pending;
                }

                next = _started.Task;
            }

            await next.WaitAsync(TimeSpan.FromSeconds(10));
        }
    }

    public override async ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        ValueTask<ReadResult> read = inner.ReadAsync(cancellationToken);
        ReadResult result;
        if (read.IsCompleted)
        {
            result = await read;
        }
        else
        {
            var pending = new PendingRead(cancellationToken.CanBeCanceled);
            // The engine's timers cancel its reads: this runs inside the clock's Advance when one fires.
            using (cancellationToken.UnsafeRegister(static state => ((PendingRead)state!).WokenByClock = true, pending))
            {
                TaskCompletionSource started;
                lock (_lock)
                {
                    _pending = pending;
                    started = _started;
                    _started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                }

                started.TrySetResult();
                try
                {
                    result = await read;
                }
                finally
                {
                    lock (_lock)
                    {
                        pending.Ended = true;
                    }
                }
            }
        }

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

/// <summary>A read of the engine's that found no input and waits for some.</summary>
internal sealed class PendingRead(bool timed)
{
    /// <summary>Whether the read waits with a token a timer can cancel.</summary>
    public bool Timed { get; } = timed;

    /// <summary>Set inside the clock's Advance, on the test's thread, when the read's timer fires.</summary>
    public bool WokenByClock { get; set; }

    /// <summary>The read returned (input, end of input, or its cancellation); set and read under the reader's lock.</summary>
    public bool Ended { get; set; }
}

internal sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
{
    public PipeReader Input { get; } = input;

    public PipeWriter Output { get; } = output;
}
