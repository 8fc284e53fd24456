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

        return Answer(route.Module, in match, request, response);
    }

    /// <summary>
    /// The module's answer, compiled as a method of its own rather than inlined with the router into the connection's
    /// request loop: there, with the module's handlers and the response's writer inlined too, the JIT ran out of its
    /// inlining budget, left even span copies as calls and zeroed a 0.8 KB frame per request
    /// (docs/decisions/0013-protocol-seam.md, Measured). The module's own call stays guarded-devirtualised by PGO.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ValueTask Answer(IRouteModule module, in RouteMatch match, HttpRequest request, HttpResponse response) =>
        module.Answer(in match, request, response);

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
