using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The HttpArena routes of this file's part (static files, async-db), reached from <see cref="Router"/> only for paths
/// off the TFB table. Each answers GET and HEAD; other methods get 405 with Allow.
/// </summary>
internal sealed partial class HttpArenaRoutes
{
    public static ReadOnlySpan<byte> AsyncDbPath => "/async-db"u8;

    private static ReadOnlySpan<byte> ReadMethods => "GET, HEAD"u8;

    /// <summary>The forms the banner prints.</summary>
    public static IEnumerable<string> StaticAndDatabaseForms => ["/static/{file}", "/async-db?min={min}&max={max}&limit={limit}"];

    /// <summary>Whether <paramref name="path"/> is one of these routes.</summary>
    public static bool IsStaticOrDatabasePath(ReadOnlySpan<byte> path)
        => (path.StartsWith(StaticPrefix) && path.Length > StaticPrefix.Length) || path.SequenceEqual(AsyncDbPath);

    /// <summary>Answers a request whose path <see cref="IsStaticOrDatabasePath"/> accepted.</summary>
    public static ValueTask AnswerStaticOrDatabase(HttpRequest request, HttpResponse response, StaticFiles? files, Database? database)
    {
        if (request.Method is not (HttpMethod.Get or HttpMethod.Head))
        {
            response.WriteMethodNotAllowed(ReadMethods);
            return default;
        }

        return request.Path.SequenceEqual(AsyncDbPath) ? AsyncDatabase.Handle(request, response, database) : Static(request, response, files);
    }
}
