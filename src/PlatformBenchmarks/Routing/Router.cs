using System.Runtime.CompilerServices;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Routing;

/// <summary>
/// The application the engine calls: finds the route of each request in the <see cref="RouteTable"/> and hands it to
/// the route's module. What no route names is a 404; a method the route does not list is a 405 with its Allow; a method
/// the server does not recognise is a 501 on any path. A struct, so the connection loop, generic over it, calls it
/// without an interface dispatch.
/// </summary>
internal readonly struct Router(RouteTable table) : IHttpApplication
{
    private readonly RouteTable _table = table;

    /// <summary>What OPTIONS <c>*</c> names: the methods every route of the server answers.</summary>
    private static ReadOnlySpan<byte> ServerMethods => "GET, HEAD"u8;

    public RouteTable Table => _table;

    // A method of its own, as the request's one call from the connection's loop: inlined there with the module's answer
    // and the response's writer, it spent the JIT's inlining budget and left span copies as calls; compiled apart, the
    // module's answer (guarded-devirtualised by PGO) and the writer inline here (docs/decisions/0013-protocol-seam.md).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
    {
        HttpMethod method = request.Method;
        if (method is HttpMethod.Custom or HttpMethod.Connect || !_table.TryMatch(request.Path, out RouteMatch match))
        {
            return AnswerUnrouted(request, response);
        }

        Route route = match.Route;
        if (!route.Answers(method))
        {
            response.WriteMethodNotAllowed(route.Methods.Allow);
            return default;
        }

        if (method == HttpMethod.Options)
        {
            // RFC 9110 §9.3.7: a route that lists OPTIONS answers it with the methods it allows, and no content.
            response.WriteOptions(route.Methods.Allow);
            return default;
        }

        return route.Module.Answer(in match, request, response);
    }

    /// <summary>The largest body the request's route takes: its own limit when it has one and answers the method, else <paramref name="configured"/>.</summary>
    public long MaxRequestBodySize(HttpRequest request, long configured) =>
        _table.TryMatch(request.Path, out RouteMatch match) && match.Route.Answers(request.Method)
            ? match.Route.MaxRequestBodySize ?? configured
            : configured;

    /// <summary>
    /// A method this server does not recognise gets 501 whatever the path (RFC 9110 §9.1, §15.6.2; methods are
    /// case-sensitive, so <c>get</c> is one). CONNECT asks for a tunnel, which only a proxy makes (§9.3.6). OPTIONS
    /// <c>*</c> asks about the server as a whole (§9.3.7). Any other path no route names is a 404.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ValueTask AnswerUnrouted(HttpRequest request, HttpResponse response)
    {
        if (request.Method == HttpMethod.Custom)
        {
            response.WriteText(HttpStatus.NotImplemented, "Method not implemented.\n"u8);
        }
        else if (request.Method == HttpMethod.Connect)
        {
            response.WriteText(HttpStatus.NotImplemented, "CONNECT is not supported: this server is not a proxy.\n"u8);
        }
        else if (request.Method == HttpMethod.Options && request.Path.SequenceEqual("*"u8))
        {
            response.WriteOptions(ServerMethods);
        }
        else
        {
            response.WriteText(HttpStatus.NotFound, "Not found.\n"u8);
        }

        return default;
    }
}
