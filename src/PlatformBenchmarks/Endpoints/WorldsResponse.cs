using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints;

/// <summary>The answer of the tests that return a JSON array of World rows: queries, updates and cached queries.</summary>
internal static class WorldsResponse
{
    public static ValueTask WriteAsync(HttpResponse response, ValueTask<World[]> pending)
    {
        if (pending.IsCompletedSuccessfully)
        {
            // Rows already at hand (a warm cache): answer synchronously, with no state machine.
            Write(response, pending.Result);
            return default;
        }

        return AwaitAsync(response, pending);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private static async ValueTask AwaitAsync(HttpResponse response, ValueTask<World[]> pending)
    {
        World[] worlds;
        try
        {
            worlds = await pending;
        }
        catch (Exception exception) when (DatabaseErrors.IsDataFailure(exception))
        {
            DatabaseErrors.Write(response, exception);
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
