using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>TFB db test: one random World row read from the database, as a JSON object.</summary>
internal static class SingleQuery
{
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    /// <param name="loop">The loop of the request's connection: the read joins its batch.</param>
    public static async ValueTask HandleAsync(HttpResponse response, Database database, DataLoop loop)
    {
        if (!(await database.LoadSingleWorldAsync(loop)).TryGetValue(out World world, out DataFailure? failure))
        {
            DatabaseErrors.Write(response, failure);
            return;
        }

        WorldJson.Write(response.StartJson(), world);
        response.WriteBuffered(HttpStatus.Ok, MediaTypes.Json);
    }
}
