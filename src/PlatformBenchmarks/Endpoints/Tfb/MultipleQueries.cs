using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>TFB queries test: N random World rows, each read by its own statement, as a JSON array (even of one).</summary>
internal static class MultipleQueries
{
    /// <param name="loop">The loop of the request's connection: the reads join its batch.</param>
    public static ValueTask HandleAsync(HttpResponse response, Database database, int count, DataLoop loop) =>
        WorldsResponse.WriteAsync(response, database.LoadWorldsAsync(count, loop));
}
