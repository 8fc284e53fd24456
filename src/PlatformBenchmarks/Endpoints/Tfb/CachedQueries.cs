using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>
/// TFB cached-queries test: N random World rows from the in-process cache (rows, never responses), as a JSON array.
/// With every row cached the answer is written synchronously.
/// </summary>
internal static class CachedQueries
{
    /// <param name="loop">The loop of the request's connection: a cache miss joins its batch.</param>
    public static ValueTask HandleAsync(HttpResponse response, WorldCache cache, int count, DataLoop loop) =>
        WorldsResponse.WriteAsync(response, cache.GetCachedWorldsAsync(count, loop));
}
