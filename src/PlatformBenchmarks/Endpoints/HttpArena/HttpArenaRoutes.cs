using System.Diagnostics;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Routing;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The routes of HttpArena's HTTP/1.1 profiles (baseline, pipelined, json, json-compressed, upload, static, async-db) and
/// of echo-ws, the WebSocket that HTTP/1.1 upgrades to.
/// Each route answers the methods the venue sends to it, and HEAD where GET is one of them. One instance serves every
/// connection: it holds the dataset, read once at start-up, the static files and the database of async-db.
/// </summary>
internal sealed partial class HttpArenaRoutes : IRouteModule
{
    private const int BaselineRoute = 1;
    private const int PipelineRoute = 2;
    private const int JsonRoute = 3;
    private const int UploadRoute = 4;
    private const int StaticRoute = 5;
    private const int AsyncDbRoute = 6;
    private const int WebSocketRoute = 7;

    private readonly Database? _database;

    /// <param name="database">The database of async-db; null answers it with 503.</param>
    public HttpArenaRoutes(Dataset dataset, long maxUploadSize, StaticFiles? files = null, ResponseCompression? compression = null, Database? database = null)
    {
        Dataset = dataset;
        MaxUploadSize = maxUploadSize;
        Files = files;
        Compression = compression ?? ResponseCompression.Default;
        _database = database;
        Routes =
        [
            new Route(this, BaselineRoute, RoutePattern.Exact("/baseline11"), MethodSet.Of(HttpMethod.Get, HttpMethod.Head, HttpMethod.Post), forms: "/baseline11?a={a}&b={b}"),
            // The HTTP/2 profiles' name for the same sum (baseline-h2, baseline-h2c), GET only as the venue sends it.
            new Route(this, BaselineRoute, RoutePattern.Exact("/baseline2"), MethodSet.Read, forms: "/baseline2?a={a}&b={b}"),
            new Route(this, PipelineRoute, RoutePattern.Exact("/pipeline"), MethodSet.Read),
            new Route(this, JsonRoute, RoutePattern.WithSegment("/json"), MethodSet.Read, forms: "/json/{count}?m={m}"),
            new Route(this, UploadRoute, RoutePattern.Exact("/upload"), MethodSet.Of(HttpMethod.Post), maxUploadSize),
            new Route(this, StaticRoute, RoutePattern.WithRest("/static"), MethodSet.Read, forms: "/static/{file}"),
            new Route(this, AsyncDbRoute, RoutePattern.Exact("/async-db"), MethodSet.Read, forms: "/async-db?min={min}&max={max}&limit={limit}"),
            new Route(this, WebSocketRoute, RoutePattern.Exact("/ws"), MethodSet.Of(HttpMethod.Get)),
        ];
    }

    public IReadOnlyList<Route> Routes { get; }

    public Dataset Dataset { get; }

    /// <summary>What compresses <c>/json/{count}</c>'s answers.</summary>
    public ResponseCompression Compression { get; }

    /// <summary>The directory <c>/static/{file}</c> serves; null when none is configured (every file is then a 404).</summary>
    public StaticFiles? Files { get; }

    /// <summary>The largest body <c>POST /upload</c> takes (<c>HttpArena:MaxUploadSize</c>), in place of <c>Http:MaxRequestBodySize</c>.</summary>
    public long MaxUploadSize { get; }

    private static ReadOnlySpan<byte> Ok => "ok"u8;

    public ValueTask Answer(in RouteMatch match, HttpRequest request, HttpResponse response)
    {
        switch (match.Route.Id)
        {
            case BaselineRoute:
                return Baseline.Answer(request, response);
            case PipelineRoute:
                response.Write(HttpStatus.Ok, HttpResponse.TextPlain, Ok);
                return default;
            case JsonRoute:
                JsonItems.Answer(match.Value, request, response, Dataset, Compression);
                return default;
            case UploadRoute:
                return Upload.CountAsync(request.Body, response);
            case StaticRoute:
                return Static(match.Value, request, response, Files);
            case AsyncDbRoute:
                return AsyncDatabase.Handle(request, response, _database);
            case WebSocketRoute:
                WebSocketEcho.Answer(request, response);
                return default;
            default:
                throw new UnreachableException($"HttpArena has no route {match.Route.Id}.");
        }
    }
}
