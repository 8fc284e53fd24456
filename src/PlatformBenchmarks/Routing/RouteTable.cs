using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Routing;

/// <summary>
/// Every module's routes in one list, in the order the modules are given and each module lists its own: the first route
/// that matches a path wins, so the module asked most often goes first. Two routes on the same path that would both
/// match one request are refused here, at start-up, rather than left to that order.
/// </summary>
internal sealed class RouteTable
{
    private readonly Route[] _routes;

    public RouteTable(params IRouteModule[] modules)
    {
        ArgumentNullException.ThrowIfNull(modules);
        var routes = new List<Route>();
        foreach (IRouteModule module in modules)
        {
            foreach (Route route in module.Routes)
            {
                if (route.Module != module)
                {
                    throw new ArgumentException($"The route {route.Pattern.Path} is listed by a module that does not own it.", nameof(modules));
                }

                if (routes.Find(other => SamePaths(other.Pattern, route.Pattern)) is { } clash)
                {
                    throw new ArgumentException($"Two routes match the same paths: {clash.Forms[0]} and {route.Forms[0]}.", nameof(modules));
                }

                routes.Add(route);
            }
        }

        _routes = [.. routes];
    }

    /// <summary>The routes in matching order.</summary>
    public IReadOnlyList<Route> Routes => _routes;

    /// <summary>The routes as the start-up banner lists them.</summary>
    public IEnumerable<string> Forms => _routes.SelectMany(static route => route.Forms);

    /// <summary>The first route whose pattern matches <paramref name="path"/>; false when none does.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryMatch(ReadOnlySpan<byte> path, out RouteMatch match)
    {
        foreach (Route route in _routes)
        {
            if (route.Pattern.TryMatch(path, out ReadOnlySpan<byte> value, out bool hasValue))
            {
                match = new RouteMatch(route, value, hasValue);
                return true;
            }
        }

        match = default;
        return false;
    }

    // On the same path, two shapes overlap when both match that path alone or both match something after it.
    private static bool SamePaths(RoutePattern a, RoutePattern b) =>
        a.Path == b.Path && ((a.MatchesPathAlone && b.MatchesPathAlone) || (a.MatchesMore && b.MatchesMore));
}
