using System.Diagnostics;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Routing;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>
/// TechEmpower's seven tests, each a GET (and HEAD) route: plaintext, json, db, fortunes, queries, updates and cached
/// queries. The three that take a row count read it from the last path segment (<c>/queries/20</c>) or from the query
/// (<c>/queries?queries=20</c>), sanitised per TFB. Listed in the order TFB asks most, so the hottest match first.
/// </summary>
internal sealed class TfbRoutes : IRouteModule
{
    private const int Plaintext = 1;
    private const int Json = 2;
    private const int Db = 3;
    private const int Fortunes = 4;
    private const int Queries = 5;
    private const int Updates = 6;
    private const int CachedWorlds = 7;
    private const int CachedQueries = 8;

    private readonly Database _database;
    private readonly WorldCache _cache;

    /// <param name="database">The database of db, queries, updates and fortunes.</param>
    /// <param name="cache">The rows of the cached-queries test.</param>
    public TfbRoutes(Database database, WorldCache cache)
    {
        _database = database;
        _cache = cache;
        Routes =
        [
            new Route(this, Plaintext, RoutePattern.Exact("/plaintext"), MethodSet.Read),
            new Route(this, Json, RoutePattern.Exact("/json"), MethodSet.Read),
            new Route(this, Db, RoutePattern.Exact("/db"), MethodSet.Read),
            new Route(this, Fortunes, RoutePattern.Exact("/fortunes"), MethodSet.Read),
            CountRoute(Queries, "/queries", "queries"),
            CountRoute(Updates, "/updates", "queries"),
            CountRoute(CachedWorlds, "/cached-worlds", "count"),
            CountRoute(CachedQueries, "/cached-queries", "count"),
        ];
    }

    public IReadOnlyList<Route> Routes { get; }

    public ValueTask Answer(in RouteMatch match, HttpRequest request, HttpResponse response)
    {
        switch (match.Route.Id)
        {
            case Plaintext:
                Tfb.Plaintext.Write(response);
                return default;
            case Json:
                Tfb.Json.Write(response);
                return default;
            case Db:
                return SingleQuery.HandleAsync(response, _database, LoopOf(request));
            case Fortunes:
                return Tfb.Fortunes.HandleAsync(response, _database, LoopOf(request));
            case Queries:
                return MultipleQueries.HandleAsync(response, _database, Count(in match, request, "queries"u8), LoopOf(request));
            case Updates:
                return Tfb.Updates.HandleAsync(response, _database, Count(in match, request, "queries"u8), LoopOf(request));
            case CachedWorlds:
            case CachedQueries:
                return Tfb.CachedQueries.HandleAsync(response, _cache, Count(in match, request, "count"u8), LoopOf(request));
            default:
                throw new UnreachableException($"TFB has no route {match.Route.Id}.");
        }
    }

    private Route CountRoute(int id, string path, string parameter) =>
        new(this, id, RoutePattern.WithOptionalSegment(path), MethodSet.Read, forms: [$"{path}/{{count}}", $"{path}?{parameter}={{count}}"]);

    /// <summary>The transport loop the request's connection runs on, as the data layer names it: its batches are per loop.</summary>
    private static DataLoop LoopOf(HttpRequest request)
    {
        ConnectionLoop loop = request.Connection.Loop;
        return loop.NextTurn is null ? default : new DataLoop(loop.NextTurn, loop.Index, loop.ThreadId);
    }

    /// <summary>The row count from the path segment, or else from the query's <paramref name="parameter"/>, sanitised per TFB.</summary>
    private static int Count(in RouteMatch match, HttpRequest request, ReadOnlySpan<byte> parameter)
    {
        if (match.HasValue)
        {
            return QueryCount.Clamp(match.Value);
        }

        Span<byte> scratch = stackalloc byte[32];
        return QueryCount.Clamp(QueryString.GetValue(request.Query, parameter, scratch));
    }
}
