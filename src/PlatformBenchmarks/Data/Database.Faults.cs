using System.Net.Sockets;
using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    /// <summary>
    /// Exception filter of every public method: reports the outcome to the circuit breaker and, when the exception means
    /// "the database is unreachable", produces the <see cref="DatabaseUnavailableException"/> to throw instead.
    /// Anything else (a failing statement, a deadlock) means the database answered, and propagates unchanged.
    /// </summary>
    private bool IsUnavailability(Exception exception, bool probe, out DatabaseUnavailableException unavailable)
    {
        var (reason, lostConnection) = Classify(exception);
        if (reason is null)
        {
            _breaker.Succeeded(probe);
            unavailable = null!;
            return false;
        }

        if (!lostConnection)
        {
            _breaker.Succeeded(probe);
        }
        else if (_breaker.Tripped(reason))
        {
            // Idle pooled connections to a server that went away are dead: drop them now, so that the first calls after
            // its return do not fail one stale connection at a time.
            _dataSource.Clear();
        }

        unavailable = new DatabaseUnavailableException($"database unavailable: {reason}", exception);
        return true;
    }

    /// <summary>
    /// (null, _) for errors that are not about availability; otherwise a short reason, and whether the connection to the
    /// server is gone (which trips the breaker) rather than the server refusing one request (pool exhausted).
    /// </summary>
    private static (string? Reason, bool LostConnection) Classify(Exception exception)
    {
        switch (exception)
        {
            case PostgresException postgres when IsUnavailableState(postgres.SqlState):
                return ($"{postgres.SqlState} {postgres.MessageText}", true);
            case PostgresException:
                return (null, false);
            case NpgsqlException { InnerException: SocketException socket }:
                return ($"cannot connect ({socket.SocketErrorCode})", true);
            case NpgsqlException { InnerException: TimeoutException }:
                return ("timed out", true);
            case NpgsqlException { InnerException: IOException or EndOfStreamException }:
                return ("connection lost", true);
            case NpgsqlException npgsql when npgsql.InnerException is PostgresException inner:
                return Classify(inner);
            case NpgsqlException npgsql:
                // E.g. "The connection pool has been exhausted": the server is fine, this request just could not get in.
                return (npgsql.Message, false);
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
