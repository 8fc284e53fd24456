using System.Text;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints;

/// <summary>
/// Answers a database route whose call brought no rows, from the data layer's own <see cref="DataFailure"/>: the
/// endpoints never see the driver. The connection stays open: a database failure must never kill it or disturb a
/// pipelined neighbour.
/// </summary>
internal static class DatabaseErrors
{
    // Reasons are one short line; a longer one takes the allocating path.
    private const int MaxStackReason = 512;

    /// <summary>
    /// The one mapping of a failure to its answer. Unreachable: 503 with the reason, at once (the data layer fails fast).
    /// A missing row: 500 with the reason, since the route exists and the row was the server's own pick, so the fault is
    /// the server's data (RFC 9110 §15.6.1), not a target the client named (404, §15.5.5). A failing statement: 500.
    /// </summary>
    public static void Write(HttpResponse response, DataFailure failure)
    {
        switch (failure.Outcome)
        {
            case DataOutcome.Unavailable:
                WriteReason(response, HttpStatus.ServiceUnavailable, failure.Reason);
                break;
            case DataOutcome.MissingRow:
                WriteReason(response, HttpStatus.InternalServerError, failure.Reason);
                break;
            default:
                // The database answered with an error (a failing statement): this request failed, the server did not.
                response.WriteText(HttpStatus.InternalServerError, "Database error.\n"u8);
                break;
        }
    }

    private static void WriteReason(HttpResponse response, HttpStatus status, string reason)
    {
        // Encoded on the stack: during an outage every database request ends here, and it should cost no garbage.
        if (Encoding.UTF8.GetMaxByteCount(reason.Length) >= MaxStackReason)
        {
            response.WriteText(status, Encoding.UTF8.GetBytes(reason + "\n"));
            return;
        }

        Span<byte> body = stackalloc byte[MaxStackReason];
        int length = Encoding.UTF8.GetBytes(reason, body);
        body[length] = (byte)'\n';
        response.WriteText(status, body[..(length + 1)]);
    }
}
