using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>The answer of the tests that return a JSON array of World rows: queries, updates and cached queries.</summary>
internal static class WorldsResponse
{
    public static ValueTask WriteAsync(HttpResponse response, ValueTask<DataResult<World[]>> pending)
    {
        if (pending.IsCompletedSuccessfully)
        {
            // Rows already at hand (a warm cache), or the circuit breaker's answer: respond synchronously, with no state machine.
            Write(response, pending.Result);
            return default;
        }

        return AwaitAsync(response, pending);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private static async ValueTask AwaitAsync(HttpResponse response, ValueTask<DataResult<World[]>> pending)
        => Write(response, await pending);

    private static void Write(HttpResponse response, DataResult<World[]> result)
    {
        if (!result.TryGetValue(out World[]? worlds, out DataFailure? failure))
        {
            DatabaseErrors.Write(response, failure);
            return;
        }

        WorldJson.Write(response.StartJson(), worlds);
        response.WriteBuffered(HttpStatus.Ok, MediaTypes.Json);
    }
}
