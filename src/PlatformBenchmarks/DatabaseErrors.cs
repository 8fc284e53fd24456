using System.Text;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks;

/// <summary>
/// Answers a database route whose query failed. The connection stays open: a database error must never kill it or
/// disturb a pipelined neighbour. An unreachable database gets 503 with the reason, at once (the data layer fails fast).
/// </summary>
internal static class DatabaseErrors
{
    public static bool TryWrite(HttpResponse response, Exception exception)
    {
        switch (exception)
        {
            case DatabaseUnavailableException unavailable:
                response.WriteText(HttpStatus.ServiceUnavailable, Encoding.UTF8.GetBytes(unavailable.Message + "\n"));
                return true;
            case NpgsqlException:
                // The database answered with an error (a failing statement): this request failed, the server did not.
                response.WriteText(HttpStatus.InternalServerError, "Database error.\n"u8);
                return true;
            default:
                return false;
        }
    }
}
