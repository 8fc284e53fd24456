using System.IO.Pipelines;

namespace PlatformBenchmarks.Data;

/// <summary>
/// The transport loop a database call comes from, as the connection that made it knows it: a read made on that loop's
/// own thread joins the loop's batch (<see cref="DatabaseLane"/>) and its caller resumes on the loop. <c>default</c> is
/// no loop: the read goes through the shared pool.
/// </summary>
/// <remarks>
/// Passed explicitly rather than looked up on the thread: a caller that resumed elsewhere (on the thread pool, after a
/// read through the pool) still carries its connection's loop, and the thread check sends it to the pool, where it
/// cannot touch the loop's lane (docs/decisions/0006-database-batches-per-loop.md).
/// </remarks>
internal readonly struct DataLoop
{
    /// <summary>The most loops the data layer keeps a lane for: indexes run from 0 to one less.</summary>
    public const int MaxLoops = 4096;

    /// <param name="nextTurn">
    /// Runs work on the loop's thread in a later turn, after the loop has handled what it has in hand; never inline, even
    /// when called on the loop, or a batch would go out with only its first read. It runs the work with no
    /// synchronization context set, or the runtime would queue the readers' continuations to the thread pool instead
    /// of running them there. Once the loop has ended it must still run the work, on another thread (the transport's
    /// loops hand it to the thread pool then): closing relies on it.
    /// </param>
    /// <param name="index">The loop's number, small and dense (0 to <see cref="MaxLoops"/> - 1), unique in the process.</param>
    /// <param name="managedThreadId">The loop thread's <see cref="Environment.CurrentManagedThreadId"/>.</param>
    public DataLoop(PipeScheduler nextTurn, int index, int managedThreadId)
    {
        ArgumentNullException.ThrowIfNull(nextTurn);
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(index, MaxLoops);
        NextTurn = nextTurn;
        Index = index;
        ManagedThreadId = managedThreadId;
    }

    /// <summary>Queues work for the loop's next turn; null for no loop.</summary>
    public PipeScheduler? NextTurn { get; }

    public int Index { get; }

    public int ManagedThreadId { get; }

    /// <summary>Whether this names a loop and the calling thread is that loop's: only then may a read use its lane.</summary>
    public bool IsCurrentThread => NextTurn is not null && Environment.CurrentManagedThreadId == ManagedThreadId;

    public override string ToString() => NextTurn is null ? "no loop" : $"loop {Index} (thread {ManagedThreadId})";
}
