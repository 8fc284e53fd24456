using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>
/// TFB updates test: N rows read one statement each, given new random numbers and persisted by one bulk UPDATE.
/// The data layer completes only after the UPDATE did, so the response is written after it (docs/tfb-rules.md §4.4).
/// </summary>
internal static class Updates
{
    /// <param name="loop">The loop of the request's connection: the reads, then the UPDATE, join its batches.</param>
    public static ValueTask HandleAsync(HttpResponse response, Database database, int count, DataLoop loop) =>
        WorldsResponse.WriteAsync(response, database.UpdateWorldsAsync(count, loop));
}
