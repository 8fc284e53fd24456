using System.IO.Pipelines;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// The transport loop a connection runs on, as a connection feature (<c>connection.Features.Get&lt;ITransportLoopFeature&gt;()</c>):
/// present on the connections of the io_uring and epoll loops, absent on Kestrel's sockets. A loop is one thread that
/// receives, runs the application's pipe continuations and sends for every connection it owns, for their whole life,
/// so work that <see cref="NextTurn"/> brings to it needs no lock against anything else that loop runs.
/// </summary>
/// <remarks>
/// The contract of <see cref="NextTurn"/>:
/// <list type="bullet">
/// <item>Any thread may call <see cref="PipeScheduler.Schedule"/> at any time, the loop's own thread included.</item>
/// <item>It never runs the work inline: it queues it and returns (waking the loop if it waits for I/O). The work runs
/// on the loop's thread after whatever that thread is running when it is queued has returned, and before the loop next
/// waits for I/O; so work queued while the loop handles a turn's requests runs once all of them have been handled.</item>
/// <item>Work runs in the order it was queued, one item at a time; work queued by queued work runs in the same pass.
/// An exception it throws is logged and does not stop the loop.</item>
/// <item>Once the transport has stopped (the listener disposed), the loop has ended: what is queued from then on runs
/// on the thread pool, not the loop, and no longer one at a time.</item>
/// </list>
/// The loop's pipe scheduler differs: it runs a continuation inline when already on the loop's thread.
/// </remarks>
public interface ITransportLoopFeature
{
    /// <summary>The loop's index among the listener's loops, from 0: stable for the connection's life.</summary>
    int LoopIndex { get; }

    /// <summary>The loop thread's <see cref="Environment.CurrentManagedThreadId"/>: code can tell whether it runs on the loop.</summary>
    int LoopThreadId { get; }

    /// <summary>Runs work on the loop's thread at its next turn, never inline (see the remarks).</summary>
    PipeScheduler NextTurn { get; }
}
