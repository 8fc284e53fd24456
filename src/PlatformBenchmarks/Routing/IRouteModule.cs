using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Routing;

/// <summary>
/// One room of the application (TFB's tests, HttpArena's profiles, the conformance suite's resources): the routes it
/// owns and the answers behind them. The <see cref="Router"/> matches paths against every module's routes in one way,
/// refuses the methods a route does not list, and calls <see cref="Answer"/> only for a path and method the route takes.
/// A module sees the engine only through <see cref="HttpRequest"/> and <see cref="HttpResponse"/>, whatever the protocol.
/// </summary>
internal interface IRouteModule
{
    /// <summary>The module's routes, each created with this module as its owner; matched in this order.</summary>
    IReadOnlyList<Route> Routes { get; }

    /// <summary>Answers a request whose path and method <paramref name="match"/>'s route takes.</summary>
    ValueTask Answer(in RouteMatch match, HttpRequest request, HttpResponse response);
}
