using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints;

/// <summary>
/// Maps each request to its endpoint. A struct, so the connection loop (generic over it) calls it directly.
/// Every route answers GET and HEAD; other methods get 405 with Allow, unknown paths 404.
/// </summary>
internal readonly struct Router : IHttpApplication
{
    internal static readonly string[] RouteList =
    [
        "/plaintext", "/json", "/db", "/queries/{count}", "/queries?queries={count}", "/updates/{count}",
        "/updates?queries={count}", "/fortunes", "/cached-worlds/{count}", "/cached-queries?count={count}",
    ];

    private readonly Database _database;
    private readonly WorldCache _cache;

    public Router(Database database, WorldCache cache)
    {
        _database = database;
        _cache = cache;
    }

    private static ReadOnlySpan<byte> AllowedMethods => "GET, HEAD"u8;

    public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
    {
        Route route = Match(request.Path, out ReadOnlySpan<byte> countSegment, out bool countInSegment);
        if (route == Route.None)
        {
            response.WriteText(HttpStatus.NotFound, "Not found.\n"u8);
            return default;
        }

        if (request.Method is not (HttpMethod.Get or HttpMethod.Head))
        {
            response.WriteMethodNotAllowed(AllowedMethods);
            return default;
        }

        switch (route)
        {
            case Route.Plaintext:
                Plaintext.Write(response);
                return default;
            case Route.Json:
                Json.Write(response);
                return default;
            case Route.Db:
                return SingleQuery.HandleAsync(response, _database);
            case Route.Fortunes:
                return Fortunes.HandleAsync(response, _database);
            case Route.Queries:
                return MultipleQueries.HandleAsync(response, _database, Count(request, countSegment, countInSegment, "queries"u8));
            case Route.Updates:
                return Updates.HandleAsync(response, _database, Count(request, countSegment, countInSegment, "queries"u8));
            default:
                return CachedQueries.HandleAsync(response, _cache, Count(request, countSegment, countInSegment, "count"u8));
        }
    }

    /// <summary>The row count from the path segment (<c>/queries/20</c>) or the query (<c>/queries?queries=20</c>), sanitised per TFB.</summary>
    private static int Count(HttpRequest request, ReadOnlySpan<byte> segment, bool inSegment, ReadOnlySpan<byte> parameter)
    {
        if (inSegment)
        {
            return QueryCount.Clamp(segment);
        }

        Span<byte> scratch = stackalloc byte[32];
        return QueryCount.Clamp(QueryString.GetValue(request.Query, parameter, scratch));
    }

    private static Route Match(ReadOnlySpan<byte> path, out ReadOnlySpan<byte> countSegment, out bool countInSegment)
    {
        countSegment = default;
        countInSegment = false;
        switch (path.Length)
        {
            case 3 when path.SequenceEqual("/db"u8):
                return Route.Db;
            case 5 when path.SequenceEqual("/json"u8):
                return Route.Json;
            case 9 when path.SequenceEqual("/fortunes"u8):
                return Route.Fortunes;
            case 10 when path.SequenceEqual("/plaintext"u8):
                return Route.Plaintext;
        }

        // The count routes: "/name" reads the query string, "/name/N" the segment after the slash.
        if (path.StartsWith("/queries"u8))
        {
            return CountRoute(path["/queries"u8.Length..], Route.Queries, out countSegment, out countInSegment);
        }

        if (path.StartsWith("/updates"u8))
        {
            return CountRoute(path["/updates"u8.Length..], Route.Updates, out countSegment, out countInSegment);
        }

        if (path.StartsWith("/cached-worlds"u8))
        {
            return CountRoute(path["/cached-worlds"u8.Length..], Route.Cached, out countSegment, out countInSegment);
        }

        if (path.StartsWith("/cached-queries"u8))
        {
            return CountRoute(path["/cached-queries"u8.Length..], Route.Cached, out countSegment, out countInSegment);
        }

        return Route.None;
    }

    private static Route CountRoute(ReadOnlySpan<byte> rest, Route route, out ReadOnlySpan<byte> countSegment, out bool countInSegment)
    {
        countSegment = default;
        countInSegment = false;
        if (rest.IsEmpty)
        {
            return route;
        }

        if (rest[0] != (byte)'/' || rest[1..].Contains((byte)'/'))
        {
            return Route.None;
        }

        countSegment = rest[1..];
        countInSegment = true;
        return route;
    }

    private enum Route : byte
    {
        None,
        Plaintext,
        Json,
        Db,
        Queries,
        Updates,
        Fortunes,
        Cached,
    }
}
