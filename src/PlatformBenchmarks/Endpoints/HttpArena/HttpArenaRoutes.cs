using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The routes of HttpArena's HTTP/1.1 profiles (baseline, pipelined, json, json-compressed, upload, static, async-db), reached through
/// <see cref="Router"/> off the TFB routes: a path none of those match comes here before it is a 404. Each route answers
/// the methods the venue sends to it, and HEAD where GET is one of them; any other method gets 405 with the route's own
/// Allow. One instance serves every connection: it holds the dataset, read once at start-up, and the static files.
/// </summary>
internal sealed partial class HttpArenaRoutes
{
    public HttpArenaRoutes(Dataset dataset, long maxUploadSize, StaticFiles? files = null, ResponseCompression? compression = null)
    {
        Dataset = dataset;
        MaxUploadSize = maxUploadSize;
        Files = files;
        Compression = compression ?? ResponseCompression.Default;
    }

    /// <summary>Routes without a dataset, as a router built without settings (a test's <c>default</c>) has.</summary>
    public static HttpArenaRoutes Unconfigured { get; } = new(Dataset.Unavailable("no dataset is configured"), HttpArenaOptions.DefaultMaxUploadSize);

    /// <summary>The routes as the start-up banner lists them.</summary>
    public static IReadOnlyList<string> Forms { get; } = ["/baseline11?a={a}&b={b}", "/pipeline", "/json/{count}?m={m}", "/upload"];

    /// <summary>The routes that answer from the static directory or the database, as the banner lists them after <see cref="Forms"/>.</summary>
    public static IReadOnlyList<string> StaticAndDatabaseForms { get; } = ["/static/{file}", "/async-db?min={min}&max={max}&limit={limit}"];

    public Dataset Dataset { get; }

    /// <summary>What compresses <c>/json/{count}</c>'s answers.</summary>
    public ResponseCompression Compression { get; }

    /// <summary>The directory <c>/static/{file}</c> serves; null when none is configured (every file is then a 404).</summary>
    public StaticFiles? Files { get; }

    /// <summary>The largest body <c>POST /upload</c> takes (<c>HttpArena:MaxUploadSize</c>), in place of <c>Http:MaxRequestBodySize</c>.</summary>
    public long MaxUploadSize { get; }

    /// <summary>The body limit of <paramref name="request"/>'s resource (see <see cref="IHttpApplication.MaxRequestBodySize"/>).</summary>
    public long MaxRequestBodySize(HttpRequest request, long configured)
        => request.Method == HttpMethod.Post && request.Path.SequenceEqual(Upload.Path) ? MaxUploadSize : configured;

    internal enum Route : byte
    {
        None,
        Baseline,
        Pipeline,
        Json,
        Upload,
        Static,
        AsyncDb,
    }

    public static Route Match(ReadOnlySpan<byte> path)
    {
        if (path.SequenceEqual(Baseline.Path))
        {
            return Route.Baseline;
        }

        if (path.SequenceEqual(PipelinePath))
        {
            return Route.Pipeline;
        }

        if (JsonItems.Matches(path))
        {
            return Route.Json;
        }

        if (path.SequenceEqual(Upload.Path))
        {
            return Route.Upload;
        }

        if (path.StartsWith(StaticPrefix) && path.Length > StaticPrefix.Length)
        {
            return Route.Static;
        }

        return path.SequenceEqual(AsyncDbPath) ? Route.AsyncDb : Route.None;
    }

    /// <summary>The methods <paramref name="route"/> answers, as its 405 names them in Allow (RFC 9110 §15.5.6).</summary>
    public static ReadOnlySpan<byte> AllowedMethods(Route route) => route switch
    {
        Route.Baseline => "GET, HEAD, POST"u8,
        Route.Upload => "POST"u8,
        _ => "GET, HEAD"u8,
    };

    private static ReadOnlySpan<byte> PipelinePath => "/pipeline"u8;

    private static ReadOnlySpan<byte> Ok => "ok"u8;

    /// <summary>Answers a request whose path <see cref="Match"/> gave <paramref name="route"/>; <paramref name="database"/> serves async-db.</summary>
    public ValueTask Answer(Route route, HttpRequest request, HttpResponse response, Database? database)
    {
        HttpMethod method = request.Method;
        bool read = method is HttpMethod.Get or HttpMethod.Head;
        switch (route)
        {
            case Route.Baseline when read || method == HttpMethod.Post:
                return Baseline.Answer(request, response);
            case Route.Pipeline when read:
                response.Write(HttpStatus.Ok, HttpResponse.TextPlain, Ok);
                return default;
            case Route.Json when read:
                JsonItems.Answer(request, response, Dataset, Compression);
                return default;
            case Route.Upload when method == HttpMethod.Post:
                return Upload.CountAsync(request.Body, response);
            case Route.Static when read:
                return Static(request, response, Files);
            case Route.AsyncDb when read:
                return AsyncDatabase.Handle(request, response, database);
            default:
                response.WriteMethodNotAllowed(AllowedMethods(route));
                return default;
        }
    }
}
