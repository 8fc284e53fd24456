using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks;

/// <summary>TFB cached-queries test: N random World rows from the in-process cache (rows, never responses), as a JSON array.</summary>
internal static class CachedQueries
{
    public static ValueTask HandleAsync(HttpResponse response, WorldCache cache, int count)
    {
        ValueTask<World[]> pending = cache.GetCachedWorldsAsync(count);
        if (pending.IsCompletedSuccessfully)
        {
            // Every row was cached: answer synchronously, with no state machine.
            Write(response, pending.Result);
            return default;
        }

        return AwaitReadThroughAsync(response, pending);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private static async ValueTask AwaitReadThroughAsync(HttpResponse response, ValueTask<World[]> pending)
    {
        World[] worlds;
        try
        {
            worlds = await pending;
        }
        catch (Exception exception) when (DatabaseErrors.TryWrite(response, exception))
        {
            return;
        }

        Write(response, worlds);
    }

    private static void Write(HttpResponse response, World[] worlds)
    {
        WorldJson.Write(response.StartJson(), worlds);
        response.WriteBuffered(HttpStatus.Ok, Json.ContentType);
    }
}
