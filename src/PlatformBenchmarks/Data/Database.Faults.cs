using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    /// <summary>
    /// Every public method runs its statements through here: the one place a call passes the circuit breaker, reports to
    /// it how the database answered, and turns the driver's exceptions into a <see cref="DataFailure"/>.
    /// <paramref name="call"/> is a static lambda and <paramref name="state"/> its argument, so a call captures nothing
    /// and allocates no closure. Exceptions that are no data failure (a bug) propagate unchanged.
    /// </summary>
    /// <remarks>
    /// Pooled: the statements run in their own async method (<paramref name="call"/>), so this one is a second state
    /// machine per call, whose box is reused rather than allocated (docs/decisions/0009-data-results.md).
    /// </remarks>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<DataResult<T>> CallAsync<TState, T>(TState state, Func<Database, TState, ValueTask<DataResult<T>>> call)
    {
        if (_closed)
        {
            // Disposed, or being disposed: an answer rather than the driver's ObjectDisposedException.
            return DataFailure.Closed;
        }

        BreakerAdmission admission = _breaker.Enter();
        if (admission is BreakerAdmission.Open)
        {
            // Completes synchronously: no box, no exception, no allocation while the database is known to be away.
            return _breaker.OpenFailure;
        }

        bool probe = admission is BreakerAdmission.Probe;
        try
        {
            // A missing row is an answer too: the database is there.
            DataResult<T> result = await call(this, state);
            _breaker.Succeeded(probe);
            return result;
        }
        catch (Exception exception)
        {
            DataFailure? failure = ReportFailure(exception, probe);
            if (failure is null)
            {
                throw;
            }

            return failure;
        }
    }

    /// <summary><see cref="CallAsync{TState, T}"/> for the calls without an argument.</summary>
    private ValueTask<DataResult<T>> CallAsync<T>(Func<Database, ValueTask<DataResult<T>>> call)
        => CallAsync(call, static (database, run) => run(database));

    /// <summary>
    /// The one place that decides whether a failed call means "the database is unreachable", and the only one that
    /// updates the circuit breaker for a failure. Called from the catch block (never a filter) of <see cref="CallAsync{TState, T}"/>:
    /// returns the failure to hand back instead (<see cref="DataOutcome.Unavailable"/>, or <see cref="DataOutcome.Failed"/>
    /// when the database answered with an error: a failing statement, a deadlock), or null for an exception that is no
    /// data failure (a bug), which propagates unchanged.
    /// </summary>
    private DataFailure? ReportFailure(Exception exception, bool probe)
    {
        (string? reason, bool lostConnection) = Classify(exception);
        if (reason is null || !lostConnection)
        {
            // The server answered (an error, or "pool exhausted", which is overload, not an outage).
            _breaker.Succeeded(probe);
            if (reason is null)
            {
                return exception is NpgsqlException ? new DataFailure(DataOutcome.Failed, exception.Message) : null;
            }
        }
        else if (_breaker.Tripped(reason, exception))
        {
            // Idle pooled connections to a server that went away are dead: drop them now, so that the first calls after
            // its return do not fail one stale connection at a time. The loops hold theirs outside the pool: each lane
            // sees the count move and reopens before its next batch.
            _dataSource.Clear();
            _laneSource?.Clear();
            Interlocked.Increment(ref _outages);
        }

        return new DataFailure(DataOutcome.Unavailable, $"database unavailable: {reason}");
    }

    /// <summary>
    /// (null, _) for errors that are not about availability; otherwise a short reason, and whether the connection to the
    /// server is gone (which trips the breaker) rather than the server refusing one request (pool exhausted).
    /// </summary>
    internal static (string? Reason, bool LostConnection) Classify(Exception exception)
    {
        switch (exception)
        {
            case PostgresException postgres:
                return IsUnavailableState(postgres.SqlState) ? ($"{postgres.SqlState} {postgres.MessageText}", true) : (null, false);
            // Npgsql marks it only by its message (and an inner TimeoutException, like a connect timeout's). The server is fine:
            // this request waited too long for a pooled connection, which is overload, not an outage.
            case NpgsqlException when exception.Message.StartsWith("The connection pool has been exhausted", StringComparison.Ordinal):
                return ("connection pool exhausted", false);
            case NpgsqlException { InnerException: SocketException socket }:
                return ($"cannot connect ({socket.SocketErrorCode})", true);
            case NpgsqlException { InnerException: TimeoutException }:
                return ("timed out", true);
            case NpgsqlException { InnerException: IOException or EndOfStreamException }:
                return ("connection lost", true);
            case NpgsqlException { InnerException: { } inner }:
                return Classify(inner);
            case AggregateException aggregate:
                // Several statements of one batch failed: unavailable if any failed for that reason.
                foreach (Exception inner in aggregate.InnerExceptions)
                {
                    (string? Reason, bool LostConnection) classified = Classify(inner);
                    if (classified.Reason is not null)
                    {
                        return classified;
                    }
                }

                return (null, false);
            default:
                return (null, false);
        }
    }

    private static bool IsUnavailableState(string sqlState)
        => sqlState.StartsWith("08", StringComparison.Ordinal) // connection exception
            || sqlState.StartsWith("53", StringComparison.Ordinal) // insufficient resources, too many connections
            || sqlState is "57P01" or "57P02" or "57P03" // admin shutdown, crash shutdown, cannot connect now
                or "28000" or "28P01" // invalid authorization, invalid password
                or "3D000"; // database does not exist
}
