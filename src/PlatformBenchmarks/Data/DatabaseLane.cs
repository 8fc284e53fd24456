using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Npgsql;

namespace PlatformBenchmarks.Data;

/// <summary>
/// The database work of one transport loop (/db, /fortunes, a cache miss, the twenty reads of /queries and the reads and
/// UPDATE of /updates), written once per loop turn as one batch on connections the loop owns, and read back on the loop
/// that sends the responses. Only the loop's own thread touches it, so it takes no lock.
/// </summary>
/// <remarks>
/// With a shared multiplexing pool a read crosses threads four times: the loop hands it to the pool's writer, the
/// runtime's socket thread receives the reply, a pool worker completes it, and the loop is woken to send. When the
/// server is short of CPU each crossing costs a context switch; here a batch crosses twice, however many requests it
/// carries: the reply wakes the runtime's socket thread, which posts the batch's results to the loop through the
/// loop's <see cref="DataLoop.NextTurn"/> (docs/decisions/0006-database-batches-per-loop.md).
/// <para>
/// Every statement is its own statement with its own Sync (error barriers), as if sent alone: the batch is
/// network-level pipelining of separate queries (docs/tfb-rules.md §2 #7). Reads arriving while all the loop's
/// connections are busy wait for the next batch, so a batch grows with the load, up to one more round of batches
/// (<see cref="Accepts"/>).
/// </para>
/// </remarks>
internal sealed partial class DatabaseLane
{
    /// <summary>
    /// The most statements one batch carries: more than one request's (<see cref="World.MaxPerRequest"/>), and the
    /// twenty of every request a loop has in flight at TFB's 512 connections, so that they wait one round at most
    /// (docs/decisions/0018-multi-row-requests-in-the-loops-batches.md).
    /// </summary>
    internal const int MaxStatements = 4096;

    private static readonly Action<object?> s_flush = static state => ((DatabaseLane)state!).Flush();

    private readonly Database _database;
    private readonly NpgsqlDataSource _source;
    private readonly PipeScheduler _loop;
    private readonly int _threadId;
    private readonly Queue<LaneRead> _waiting = new();
    // The statements of the reads in _waiting: a read of many rows counts as many.
    private int _waitingStatements;
    private readonly int _maxWaiting;
    private readonly LaneConnection[] _connections;
    private bool _flushPosted;
    private bool _closed;

    /// <summary>A lane for <paramref name="loop"/>, to be created on that loop's thread.</summary>
    public DatabaseLane(Database database, NpgsqlDataSource source, DataLoop loop, int connections)
    {
        _database = database;
        _source = source;
        _loop = loop.NextTurn ?? throw new ArgumentException("A lane needs a loop.", nameof(loop));
        _threadId = loop.ManagedThreadId;
        // One more round of batches on every connection: what waits beyond it would wait longer than the shared pool.
        _maxWaiting = MaxStatements * connections;
        _connections = new LaneConnection[connections];
        for (int i = 0; i < _connections.Length; i++)
        {
            _connections[i] = new LaneConnection();
        }
    }

    /// <summary>
    /// Whether a read may join the lane now: on the lane's own thread, before it closed, while fewer statements wait than
    /// one more round of batches on every connection carries. A read refused because the lane is full goes through the
    /// shared pool, which bounds its own waits: it still gets its rows, and the lane's memory stays bounded however slow the
    /// database is (docs/decisions/0006-database-batches-per-loop.md, "A full lane").
    /// </summary>
    public bool Accepts => OnOwnThread && !_closed && _waitingStatements < _maxWaiting;

    /// <summary>
    /// Closes the lane on its loop: the reads still waiting get <see cref="DataFailure.Closed"/>, idle connections close at
    /// once, one with a batch in flight when the batch ends, and no connection opens afterwards. A loop that has ended
    /// runs the closing elsewhere (<see cref="DataLoop.NextTurn"/>), with nothing in flight.
    /// </summary>
    public Task CloseAsync()
    {
        var closed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _loop.Schedule(static state =>
        {
            (DatabaseLane lane, TaskCompletionSource done) = ((DatabaseLane, TaskCompletionSource))state!;
            _ = lane.CloseOnLoopAsync(done);
        }, (this, closed));
        return closed.Task;
    }

    private async Task CloseOnLoopAsync(TaskCompletionSource closed)
    {
        _closed = true;
        _waitingStatements = 0;
        while (_waiting.TryDequeue(out LaneRead? read))
        {
            Deliver(read, DataFailure.Closed, null);
        }

        foreach (LaneConnection connection in _connections)
        {
            if (!connection.Busy)
            {
                await connection.DropAsync();
            }
        }

        closed.TrySetResult();
    }

    /// <summary>Whether the calling thread is the lane's own: only it may touch the queue and the pools.</summary>
    internal bool OnOwnThread => Environment.CurrentManagedThreadId == _threadId;

    private void Enqueue(LaneRead read)
    {
        Debug.Assert(Accepts, "Only a read the lane accepts joins it.");
        _waiting.Enqueue(read);
        _waitingStatements += read.Statements;
        PostFlush();
    }

    private void PostFlush()
    {
        // Once per turn: the flush runs after the loop has handled every request of the turn, so they share a batch.
        if (!_flushPosted)
        {
            _flushPosted = true;
            _loop.Schedule(s_flush, this);
        }
    }

    /// <summary>Starts a batch on each idle connection while reads wait.</summary>
    private void Flush()
    {
        _flushPosted = false;
        foreach (LaneConnection connection in _connections)
        {
            if (_waiting.Count == 0)
            {
                return;
            }

            if (!connection.Busy)
            {
                _waitingStatements -= connection.Take(_waiting);
                _ = RunAsync(connection);
            }
        }
    }

    /// <summary>
    /// Completes <paramref name="read"/>, running its caller's continuation inline, here on the loop, so the response is
    /// written at once. Nothing sets a synchronization context on the loop's next turn, and the runtime inlines an
    /// awaiting method's continuation only where none is set (it would queue it to the thread pool otherwise).
    /// </summary>
    private static void Deliver(LaneRead read, DataFailure? failure, Exception? bug)
    {
        if (failure is not null)
        {
            read.Fail(failure);
        }
        else if (bug is not null)
        {
            read.Fail(bug);
        }
        else
        {
            read.Complete();
        }
    }

    /// <summary>
    /// Sends one connection's batch from the loop, reads the whole reply on whichever thread receives it, then comes back
    /// to the loop once to complete the batch's reads. Never throws: a failure completes every read whose rows were not
    /// all in with it, and the connection is dropped (the next batch opens another).
    /// </summary>
    /// <remarks>
    /// PostgreSQL sends each statement's result on its own, as it reaches the statement's Sync; coming back to the loop
    /// for each would wake it once per statement instead of once per batch. While
    /// the batch is in flight the connection and its reads belong to the batch alone: the loop leaves a busy connection
    /// be, and the return to the loop orders every write made here before the loop's reads of them.
    /// </remarks>
    private async Task RunAsync(LaneConnection connection)
    {
        int ready = 0;
        DataFailure? failure = null;
        Exception? bug = null;
        try
        {
            // A connection held through an outage died with the server's process: reopen rather than fail a batch on it.
            int outages = _database.Outages;
            if (connection.OpenedBefore(outages))
            {
                await connection.DropAsync().ConfigureAwait(false);
            }

            NpgsqlBatch batch = connection.Batch ?? await connection.OpenAsync(_source, outages).ConfigureAwait(false);
            connection.Prepare(batch);
            NpgsqlDataReader reader = await batch.ExecuteReaderAsync().ConfigureAwait(false);
            await using (reader.ConfigureAwait(false))
            {
                for (; ready < connection.Count; ready++)
                {
                    if (ready > 0 && !await reader.NextResultAsync().ConfigureAwait(false))
                    {
                        throw new InvalidOperationException("The batch returned fewer results than it had statements.");
                    }

                    await connection.Reads[ready].ReadResultAsync(reader).ConfigureAwait(false);
                }
            }
        }
        catch (Exception exception)
        {
            failure = _database.ReportLaneFailure(exception);
            bug = failure is null ? exception : null;
            await connection.DropAsync().ConfigureAwait(false);
        }

        await new ReturnTo(_loop);
        for (int i = 0; i < connection.Count; i++)
        {
            LaneRead read = connection.Reads[i];
            connection.Reads[i] = null!;
            if (i < ready)
            {
                Deliver(read, null, null);
            }
            else
            {
                Deliver(read, failure, bug);
            }
        }

        connection.Busy = false;
        if (_closed)
        {
            // Closed while the batch was out: the reads that waited had their answer then, and none opens a connection now.
            await connection.DropAsync();
        }
        else if (_waiting.Count > 0)
        {
            // Reads that arrived meanwhile go out now.
            PostFlush();
        }
    }

    /// <summary>Awaited, continues on the loop (in its next turn) whatever thread awaited it.</summary>
    private readonly struct ReturnTo(PipeScheduler loop) : ICriticalNotifyCompletion
    {
        public bool IsCompleted => false;

        public ReturnTo GetAwaiter() => this;

        public void GetResult()
        {
        }

        public void OnCompleted(Action continuation) => loop.Schedule(static state => ((Action)state!)(), continuation);

        public void UnsafeOnCompleted(Action continuation) => OnCompleted(continuation);
    }
}
