using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>Requests to HttpArena's routes through the server's router, over an in-memory connection.</summary>
internal static class ArenaExchange
{
    public static string Get(string target, string fields = "") => $"GET {target} HTTP/1.1\r\nHost: t\r\n{fields}\r\n";

    public static string PostWithLength(string target, string body) => $"POST {target} HTTP/1.1\r\nHost: t\r\nContent-Length: {body.Length}\r\n\r\n{body}";

    /// <summary>A POST whose body is sent as one chunk per part.</summary>
    public static string PostChunked(string target, params string[] parts)
        => $"POST {target} HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
            + string.Concat(parts.Select(part => $"{part.Length:x}\r\n{part}\r\n")) + "0\r\n\r\n";

    /// <summary>Each request with every point it can be cut at, the head included, for <see cref="SendSplitAsync"/>.</summary>
    public static TheoryData<string, int> SplitPoints(params string[] requests)
    {
        var data = new TheoryData<string, int>();
        foreach (string request in requests)
        {
            for (int point = 1; point < request.Length; point++)
            {
                data.Add(request, point);
            }
        }

        return data;
    }

    /// <summary>Sends <paramref name="request"/> and reads its one response.</summary>
    public static async Task<RawResponse> SendAsync(string request, bool head = false, Router? router = null)
    {
        await using var connection = new PipeConnection<Router>(router ?? TestRouter.Create());
        await connection.SendAsync(request);
        return (await connection.ReadAsync(head))!;
    }

    /// <summary>Sends <paramref name="request"/> cut at <paramref name="point"/>, the second part once the first is examined.</summary>
    public static async Task<RawResponse> SendSplitAsync(string request, int point, Router? router = null)
    {
        await using var connection = new PipeConnection<Router>(router ?? TestRouter.Create());
        await connection.SendAsync(request[..point]);
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync(request[point..]);
        return (await connection.ReadAsync())!;
    }
}
