using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks;

/// <summary>
/// TFB updates test: N rows read one statement each, given new random numbers and persisted by one bulk UPDATE.
/// The response is written only after the UPDATE completed (tfb-rules.md §4.4).
/// </summary>
internal static class Updates
{
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public static async ValueTask HandleAsync(HttpResponse response, Database database, int count)
    {
        World[] worlds;
        try
        {
            worlds = await database.UpdateWorldsAsync(count);
        }
        catch (Exception exception) when (DatabaseErrors.TryWrite(response, exception))
        {
            return;
        }

        WorldJson.Write(response.StartJson(), worlds);
        response.WriteBuffered(HttpStatus.Ok, Json.ContentType);
    }
}
