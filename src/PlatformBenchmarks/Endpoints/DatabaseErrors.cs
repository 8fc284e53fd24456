using System.Text;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints;

/// <summary>
/// Answers a database route whose query failed. The connection stays open: a database error must never kill it or
/// disturb a pipelined neighbour. An unreachable database gets 503 with the reason, at once (the data layer fails fast).
/// </summary>
internal static class DatabaseErrors
{
    /// <summary>Whether <paramref name="exception"/> is a data-layer failure that <see cref="Write"/> answers. No side effects: used in filters.</summary>
    public static bool IsDataFailure(Exception exception) => exception is DatabaseUnavailableException or NpgsqlException;

    /// <summary>The one mapping of a data-layer failure to its answer: 503 with the reason when unreachable, else 500.</summary>
    public static void Write(HttpResponse response, Exception exception)
    {
        if (exception is DatabaseUnavailableException unavailable)
        {
            response.WriteText(HttpStatus.ServiceUnavailable, Encoding.UTF8.GetBytes(unavailable.Message + "\n"));
        }
        else
        {
            // The database answered with an error (a failing statement): this request failed, the server did not.
            response.WriteText(HttpStatus.InternalServerError, "Database error.\n"u8);
        }
    }
}
