using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks;

/// <summary>TFB queries test: N random World rows, each read by its own statement, as a JSON array (even of one).</summary>
internal static class MultipleQueries
{
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public static async ValueTask HandleAsync(HttpResponse response, Database database, int count)
    {
        World[] worlds;
        try
        {
            worlds = await database.LoadWorldsAsync(count);
        }
        catch (Exception exception) when (DatabaseErrors.TryWrite(response, exception))
        {
            return;
        }

        WorldJson.Write(response.StartJson(), worlds);
        response.WriteBuffered(HttpStatus.Ok, Json.ContentType);
    }
}
