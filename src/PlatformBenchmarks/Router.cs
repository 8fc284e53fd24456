using PlatformBenchmarks.Http;

namespace PlatformBenchmarks;

/// <summary>
/// Maps each request to its endpoint. A struct, so the connection loop (generic over it) calls it directly.
/// Every route answers GET and HEAD; other methods get 405 with Allow, unknown paths 404.
/// </summary>
internal readonly struct Router : IHttpApplication
{
    internal static readonly string[] RouteList = ["/plaintext", "/json"];

    private static ReadOnlySpan<byte> AllowedMethods => "GET, HEAD"u8;

    public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
    {
        Route route = Match(request.Path);
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
                break;
            case Route.Json:
                Json.Write(response);
                break;
        }

        return default;
    }

    private static Route Match(ReadOnlySpan<byte> path)
    {
        switch (path.Length)
        {
            case 5 when path.SequenceEqual("/json"u8):
                return Route.Json;
            case 10 when path.SequenceEqual("/plaintext"u8):
                return Route.Plaintext;
            default:
                return Route.None;
        }
    }

    private enum Route : byte
    {
        None,
        Plaintext,
        Json,
    }
}
