namespace PlatformBenchmarks.Transport;

/// <summary>
/// A loop thread as a <see cref="SynchronizationContext"/>, for code that must come back to the loop that called it:
/// <see cref="Post"/> queues the work for the loop's next turn and runs it with this context current, so every
/// <c>await</c> inside it returns to the same loop. <see cref="CurrentLoop"/> is null off the loop threads.
/// </summary>
/// <remarks>
/// The loops do not install it on their threads: code that knows nothing of it (the application, pipe continuations)
/// keeps its usual behaviour, and only work started through <see cref="Post"/> stays on the loop. A client such as the
/// data layer's per-loop batches uses it to read replies on the loop that will send the responses, without a hand-off
/// through the thread pool (docs/decisions/0006-database-batches-per-loop.md).
/// </remarks>
public sealed class LoopSynchronizationContext : SynchronizationContext
{
    private readonly TransportLoop _loop;

    internal LoopSynchronizationContext(TransportLoop loop) => _loop = loop;

    /// <summary>The context of the loop running on this thread; null on any other thread.</summary>
    public static LoopSynchronizationContext? CurrentLoop => TransportLoop.Current?.Context;

    /// <summary>Queues <paramref name="d"/> for the loop's next turn (waking it if it waits) and runs it with this context current.</summary>
    public override void Post(SendOrPostCallback d, object? state)
    {
        ArgumentNullException.ThrowIfNull(d);
        _loop.Post(static s => ((PostedWork)s!).Run(), new PostedWork(this, d, state));
    }

    /// <summary>Not supported: a loop must never wait for itself.</summary>
    public override void Send(SendOrPostCallback d, object? state)
        => throw new NotSupportedException("A transport loop runs work only asynchronously; use Post.");

    public override SynchronizationContext CreateCopy() => this;

    private sealed class PostedWork(LoopSynchronizationContext context, SendOrPostCallback callback, object? state)
    {
        public void Run()
        {
            SynchronizationContext? previous = SynchronizationContext.Current;
            SetSynchronizationContext(context);
            try
            {
                callback(state);
            }
            finally
            {
                SetSynchronizationContext(previous);
            }
        }
    }
}
