using System.IO.Pipelines;

namespace PlatformBenchmarks.Http;

/// <summary>
/// The transport loop a connection runs on, as its host describes it: a scheduler that runs work on the loop's next turn
/// (never inline), the loop's index among the server's loops, and its thread. Code that keeps state per loop (the data
/// layer's batches) finds its loop here, passed down explicitly, never from thread-static state. <c>default</c> is no
/// loop: a transport without loops of its own (Kestrel's sockets), or a connection built in a test.
/// </summary>
public readonly record struct ConnectionLoop
{
    public ConnectionLoop(PipeScheduler nextTurn, int index, int threadId)
    {
        ArgumentNullException.ThrowIfNull(nextTurn);
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        NextTurn = nextTurn;
        Index = index;
        ThreadId = threadId;
    }

    /// <summary>Runs work on the loop's thread after what the loop is doing now; null when there is no loop.</summary>
    public PipeScheduler? NextTurn { get; }

    /// <summary>The loop's index, 0 to the number of loops less one.</summary>
    public int Index { get; }

    /// <summary>The managed thread id of the loop's thread.</summary>
    public int ThreadId { get; }

    /// <summary>Whether the calling code runs on the loop's own thread (false when there is no loop).</summary>
    public bool IsCurrentThread => NextTurn is not null && Environment.CurrentManagedThreadId == ThreadId;
}
