using System.Runtime.CompilerServices;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints.Conformance;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints;

/// <summary>
/// Maps each request to its endpoint. A struct, so the connection loop (generic over it) calls it directly.
/// Every route answers GET and HEAD; other known methods get 405 with Allow, unknown paths 404, unrecognised methods 501.
/// </summary>
internal readonly struct Router : IHttpApplication
{
    /// <summary>
    /// The one route table: <see cref="Match"/> reads it and the start-up banner prints it. An exact route matches its
    /// path alone; a count route matches <c>/name</c> (count from the query) and <c>/name/N</c> (count from the segment).
    /// Ordered by how often TFB asks, so the hottest routes match first.
    /// </summary>
    internal static readonly RouteEntry[] Table =
    [
        new("/plaintext", Route.Plaintext),
        new("/json", Route.Json),
        new("/db", Route.Db),
        new("/fortunes", Route.Fortunes),
        new("/queries", Route.Queries, "queries"),
        new("/updates", Route.Updates, "queries"),
        new("/cached-worlds", Route.Cached, "count"),
        new("/cached-queries", Route.Cached, "count"),
    ];

    private readonly Database _database;
    private readonly WorldCache _cache;
    private readonly HttpArenaRoutes? _arena;

    public Router(Database database, WorldCache cache, HttpArenaRoutes? arena = null)
    {
        _database = database;
        _cache = cache;
        _arena = arena;
    }

    private HttpArenaRoutes Arena => _arena ?? HttpArenaRoutes.Unconfigured;

    private static ReadOnlySpan<byte> AllowedMethods => "GET, HEAD"u8;

    /// <summary>
    /// A method this server does not recognise gets 501 whatever the path (RFC 9110 §9.1, §15.6.2; methods are
    /// case-sensitive, so <c>get</c> is one). OPTIONS <c>*</c> asks about the server as a whole and gets 200 with the
    /// methods it serves (RFC 9110 §9.3.7); OPTIONS on a route gets 405 like any other method but GET and HEAD.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ValueTask AnswerRareMethod(HttpRequest request, HttpResponse response)
    {
        if (request.Method == HttpMethod.Custom)
        {
            response.WriteText(HttpStatus.NotImplemented, "Method not implemented.\n"u8);
        }
        else if (request.Method == HttpMethod.Connect)
        {
            // RFC 9110 §9.3.6: CONNECT asks for a tunnel, which only a proxy makes; its target names no resource here.
            response.WriteText(HttpStatus.NotImplemented, "CONNECT is not supported: this server is not a proxy.\n"u8);
        }
        else if (request.Path.SequenceEqual("*"u8))
        {
            response.WriteOptions(AllowedMethods);
        }
        else if (request.Path.SequenceEqual(ConformanceRoutes.RootPath))
        {
            response.WriteOptions(ConformanceRoutes.RootMethods);
        }
        else if (HttpArenaRoutes.Match(request.Path) is var arenaRoute and not HttpArenaRoutes.Route.None)
        {
            response.WriteMethodNotAllowed(HttpArenaRoutes.AllowedMethods(arenaRoute));
        }
        else if (Match(request.Path, out _, out _, out _) == Route.None && !IsConformancePath(request.Path))
        {
            response.WriteText(HttpStatus.NotFound, "Not found.\n"u8);
        }
        else
        {
            response.WriteMethodNotAllowed(AllowedMethods);
        }

        return default;
    }

    /// <summary>Off the TFB routes: the HttpArena routes (<see cref="HttpArenaRoutes"/>), the conformance routes (<see cref="ConformanceRoutes"/>), or 404.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ValueTask AnswerOtherPath(HttpRequest request, HttpResponse response)
    {
        ReadOnlySpan<byte> path = request.Path;
        if (HttpArenaRoutes.Match(path) is var arenaRoute and not HttpArenaRoutes.Route.None)
        {
            return Arena.Answer(arenaRoute, request, response, _database);
        }

        if (!IsConformancePath(path))
        {
            response.WriteText(HttpStatus.NotFound, "Not found.\n"u8);
        }
        else if (request.Method == HttpMethod.Post && path.SequenceEqual(ConformanceRoutes.RootPath))
        {
            return ConformanceRoutes.EchoBody(request, response);
        }
        else if (request.Method is not (HttpMethod.Get or HttpMethod.Head))
        {
            response.WriteMethodNotAllowed(path.SequenceEqual(ConformanceRoutes.RootPath) ? ConformanceRoutes.RootMethods : AllowedMethods);
        }
        else if (path.SequenceEqual(ConformanceRoutes.EchoPath))
        {
            ConformanceRoutes.Echo(request, response);
        }
        else if (path.SequenceEqual(ConformanceRoutes.CookiePath))
        {
            ConformanceRoutes.Cookie(request, response);
        }
        else
        {
            ConformanceRoutes.Root(response);
        }

        return default;
    }

    private static bool IsConformancePath(ReadOnlySpan<byte> path) =>
        path.SequenceEqual(ConformanceRoutes.RootPath) || path.SequenceEqual(ConformanceRoutes.EchoPath) || path.SequenceEqual(ConformanceRoutes.CookiePath);

    /// <summary>Only HttpArena's upload route takes bodies past <c>Http:MaxRequestBodySize</c>; asked only of requests with a body.</summary>
    public long MaxRequestBodySize(HttpRequest request, long configured) => Arena.MaxRequestBodySize(request, configured);

    public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
    {
        if (request.Method is HttpMethod.Custom or HttpMethod.Options or HttpMethod.Connect)
        {
            return AnswerRareMethod(request, response);
        }

        Route route = Match(request.Path, out ReadOnlySpan<byte> parameter, out ReadOnlySpan<byte> countSegment, out bool countInSegment);
        if (route == Route.None)
        {
            return AnswerOtherPath(request, response);
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
                return SingleQuery.HandleAsync(response, _database, default);
            case Route.Fortunes:
                return Fortunes.HandleAsync(response, _database, default);
            case Route.Queries:
                return MultipleQueries.HandleAsync(response, _database, Count(request, countSegment, countInSegment, parameter));
            case Route.Updates:
                return Updates.HandleAsync(response, _database, Count(request, countSegment, countInSegment, parameter));
            case Route.Cached:
                return CachedQueries.HandleAsync(response, _cache, Count(request, countSegment, countInSegment, parameter), default);
            default:
                // Unreachable while every route of the table has its case above; never a handler by default.
                response.WriteText(HttpStatus.NotFound, "Not found.\n"u8);
                return default;
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

    private static Route Match(ReadOnlySpan<byte> path, out ReadOnlySpan<byte> parameter, out ReadOnlySpan<byte> countSegment, out bool countInSegment)
    {
        parameter = default;
        countSegment = default;
        countInSegment = false;
        foreach (RouteEntry entry in Table)
        {
            if (!entry.HasCount)
            {
                if (path.SequenceEqual(entry.Path))
                {
                    return entry.Route;
                }
            }
            else if (path.StartsWith(entry.Path) && CountRoute(path[entry.Path.Length..], entry.Route, out countSegment, out countInSegment) is var route and not Route.None)
            {
                parameter = entry.Parameter;
                return route;
            }
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

    internal enum Route : byte
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

    /// <summary>One row of <see cref="Table"/>.</summary>
    internal readonly struct RouteEntry(string path, Route route, string? countParameter = null)
    {
        public byte[] Path { get; } = System.Text.Encoding.ASCII.GetBytes(path);

        public Route Route { get; } = route;

        /// <summary>The query parameter that carries the count (empty for an exact route).</summary>
        public byte[] Parameter { get; } = countParameter is null ? [] : System.Text.Encoding.ASCII.GetBytes(countParameter);

        public bool HasCount => Parameter.Length != 0;

        /// <summary>The forms the banner prints: <c>/db</c>, or <c>/queries/{count} /queries?queries={count}</c>.</summary>
        public IEnumerable<string> Forms()
        {
            string name = System.Text.Encoding.ASCII.GetString(Path);
            return HasCount ? [$"{name}/{{count}}", $"{name}?{System.Text.Encoding.ASCII.GetString(Parameter)}={{count}}"] : [name];
        }
    }
}
