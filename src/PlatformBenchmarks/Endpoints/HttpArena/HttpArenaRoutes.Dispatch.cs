using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The HttpArena routes of this file's part (static files), reached from <see cref="Router"/> only for paths off the
/// TFB table. Each answers GET and HEAD; other methods get 405 with Allow.
/// </summary>
internal static partial class HttpArenaRoutes
{
    private static ReadOnlySpan<byte> ReadMethods => "GET, HEAD"u8;

    /// <summary>The forms the banner prints.</summary>
    public static IEnumerable<string> StaticForms => ["/static/{file}"];

    /// <summary>Whether <paramref name="path"/> is one of these routes.</summary>
    public static bool IsStaticPath(ReadOnlySpan<byte> path) => path.StartsWith(StaticPrefix) && path.Length > StaticPrefix.Length;

    /// <summary>Answers a request whose path <see cref="IsStaticPath"/> accepted.</summary>
    public static ValueTask AnswerStatic(HttpRequest request, HttpResponse response, StaticFiles? files)
    {
        if (request.Method is not (HttpMethod.Get or HttpMethod.Head))
        {
            response.WriteMethodNotAllowed(ReadMethods);
            return default;
        }

        return Static(request, response, files);
    }
}
