using System.Buffers;
using System.Diagnostics;
using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Routing;

namespace PlatformBenchmarks.Endpoints.Conformance;

/// <summary>
/// The routes an outside HTTP conformance suite (Http11Probe) sends its probes to, so that what it scores is the
/// engine and not a missing resource: <c>/</c> (GET, HEAD, OPTIONS, and POST, which echoes the body), <c>/echo</c> (the
/// request's header fields, one per line, as received) and <c>/cookie</c> (the parsed cookies, one <c>name=value</c> per
/// line). They never touch the database, and the TFB routes do not change for them.
/// </summary>
internal sealed class ConformanceRoutes : IRouteModule
{
    private const int RootRoute = 1;
    private const int EchoRoute = 2;
    private const int CookieRoute = 3;

    public ConformanceRoutes()
    {
        Routes =
        [
            new Route(this, RootRoute, RoutePattern.Exact("/"), MethodSet.Of(HttpMethod.Get, HttpMethod.Head, HttpMethod.Post, HttpMethod.Options)),
            new Route(this, EchoRoute, RoutePattern.Exact("/echo"), MethodSet.Read),
            new Route(this, CookieRoute, RoutePattern.Exact("/cookie"), MethodSet.Read),
        ];
    }

    public IReadOnlyList<Route> Routes { get; }

    private static ReadOnlySpan<byte> Ok => "OK"u8;

    public ValueTask Answer(in RouteMatch match, HttpRequest request, HttpResponse response)
    {
        switch (match.Route.Id)
        {
            case RootRoute when request.Method == HttpMethod.Post:
                return EchoBody(request, response);
            case RootRoute:
                response.Write(HttpStatus.Ok, HttpResponse.TextPlain, Ok);
                break;
            case EchoRoute:
                Echo(request, response);
                break;
            case CookieRoute:
                Cookie(request, response);
                break;
            default:
                throw new UnreachableException($"The conformance module has no route {match.Route.Id}.");
        }

        return default;
    }

    /// <summary>
    /// POST to <c>/</c>: the request's body as the response's, read as it arrives (Content-Length or chunked), with the
    /// request's Content-Type. The head is read first: the request borrows a buffer the body's reads release.
    /// </summary>
    private static ValueTask EchoBody(HttpRequest request, HttpResponse response)
    {
        byte[]? contentType = null;
        foreach (HttpRequest.Field field in request.Fields)
        {
            if (Ascii.EqualsIgnoreCase(field.Name, "content-type"u8))
            {
                contentType = field.Value.ToArray();
            }
        }

        return EchoBodyAsync(request.Body, contentType, response);
    }

    private static async ValueTask EchoBodyAsync(RequestBody body, byte[]? contentType, HttpResponse response)
    {
        IBufferWriter<byte> writer = response.StartBody();
        while (true)
        {
            int read = await body.ReadAsync(writer.GetMemory(4096));
            if (read == 0)
            {
                break;
            }

            writer.Advance(read);
        }

        response.WriteBuffered(HttpStatus.Ok, contentType ?? HttpResponse.TextPlain);
    }

    /// <summary>Each header field as <c>Name: value</c> and a line feed, in the order received.</summary>
    private static void Echo(HttpRequest request, HttpResponse response)
    {
        IBufferWriter<byte> body = response.StartBody();
        foreach (HttpRequest.Field field in request.Fields)
        {
            body.Write(field.Name);
            body.Write(": "u8);
            body.Write(field.Value);
            body.Write("\n"u8);
        }

        response.WriteBuffered(HttpStatus.Ok, HttpResponse.TextPlain);
    }

    /// <summary>
    /// Every cookie of every Cookie field as <c>name=value</c> and a line feed (RFC 6265 §5.4: pairs separated by
    /// <c>;</c>, whitespace around them dropped). A pair without <c>=</c> or with an empty name is skipped, never an error.
    /// </summary>
    private static void Cookie(HttpRequest request, HttpResponse response)
    {
        IBufferWriter<byte> body = response.StartBody();
        foreach (HttpRequest.Field field in request.Fields)
        {
            if (!Ascii.EqualsIgnoreCase(field.Name, "cookie"u8))
            {
                continue;
            }

            foreach (Range part in field.Value.Split((byte)';'))
            {
                ReadOnlySpan<byte> pair = field.Value[part].Trim(" \t"u8);
                int equals = pair.IndexOf((byte)'=');
                ReadOnlySpan<byte> name = equals < 0 ? default : pair.Slice(0, equals).Trim(" \t"u8);
                if (name.IsEmpty)
                {
                    continue;
                }

                body.Write(name);
                body.Write("="u8);
                body.Write(pair.Slice(equals + 1).Trim(" \t"u8));
                body.Write("\n"u8);
            }
        }

        response.WriteBuffered(HttpStatus.Ok, HttpResponse.TextPlain);
    }
}
