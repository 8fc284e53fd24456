using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Routing;

/// <summary>
/// One route of a module: the paths it matches, the methods it answers, the largest request body it takes, and how the
/// start-up banner shows it. <see cref="Id"/> is the module's own name for it, which its <see cref="IRouteModule.Answer"/>
/// switches on.
/// </summary>
internal sealed class Route
{
    // The methods' mask beside the route's other fields: every request checks it.
    private readonly int _methods;

    public Route(IRouteModule module, int id, RoutePattern pattern, MethodSet methods, long? maxRequestBodySize = null, params string[] forms)
    {
        ArgumentNullException.ThrowIfNull(module);
        ArgumentNullException.ThrowIfNull(pattern);
        ArgumentNullException.ThrowIfNull(methods);
        Module = module;
        Id = id;
        Pattern = pattern;
        Methods = methods;
        _methods = methods.Mask;
        MaxRequestBodySize = maxRequestBodySize;
        Forms = forms is { Length: > 0 } ? forms : [pattern.Path];
    }

    public IRouteModule Module { get; }

    public int Id { get; }

    public RoutePattern Pattern { get; }

    public MethodSet Methods { get; }

    /// <summary>Whether the route answers <paramref name="method"/>.</summary>
    public bool Answers(HttpMethod method) => MethodSet.Contains(_methods, method);

    /// <summary>The route's own body limit, in place of <c>Http:MaxRequestBodySize</c>; null to keep that.</summary>
    public long? MaxRequestBodySize { get; }

    /// <summary>How the banner lists the route: <c>/db</c>, or <c>/queries/{count}</c> and <c>/queries?queries={count}</c>.</summary>
    public IReadOnlyList<string> Forms { get; }
}

/// <summary>A route matched by a request's path, with what followed the route's path (see <see cref="RoutePattern.TryMatch"/>).</summary>
internal readonly ref struct RouteMatch(Route route, ReadOnlySpan<byte> value, bool hasValue)
{
    public Route Route { get; } = route;

    /// <summary>The segment (or the rest of the path) after the route's path and its '/'; empty when none followed.</summary>
    public ReadOnlySpan<byte> Value { get; } = value;

    /// <summary>Whether the path went on past the route's path (<c>/queries/</c> has an empty value, <c>/queries</c> none).</summary>
    public bool HasValue { get; } = hasValue;
}
