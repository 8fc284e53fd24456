using PlatformBenchmarks.Http;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Routing;

/// <summary>The one way every module's routes are matched, and the table's refusals at start-up.</summary>
public class RouteTableTests
{
    /// <summary>Path, and what each shape on "/r" makes of it: null for no match, else the value and whether one followed.</summary>
    public static TheoryData<string, string?, string?, string?, string?> Shapes() => new()
    {
        // path        exact     optional      segment    rest
        { "/r",        "",       "",           null,      null },
        { "/r/",       null,     "/",          null,      null },
        { "/r/7",      null,     "/7",         "/7",      "/7" },
        { "/r/7/8",    null,     null,         null,      "/7/8" },
        { "/r7",       null,     null,         null,      null },
        { "/R",        null,     null,         null,      null },
        { "/",         null,     null,         null,      null },
        { "/x/r",      null,     null,         null,      null },
        { "/r//",      null,     null,         null,      "//" },
    };

    [Theory]
    [MemberData(nameof(Shapes))]
    public void EachShapeMatchesItsPathsAndNoOthers(string path, string? exact, string? optional, string? segment, string? rest)
    {
        Assert.Equal(exact, Describe(RoutePattern.Exact("/r"), path));
        Assert.Equal(optional, Describe(RoutePattern.WithOptionalSegment("/r"), path));
        Assert.Equal(segment, Describe(RoutePattern.WithSegment("/r"), path));
        Assert.Equal(rest, Describe(RoutePattern.WithRest("/r"), path));
    }

    [Theory]
    [InlineData("r")]
    [InlineData("/r/")]
    public void APathThatIsNotARoutesIsRefused(string path)
    {
        Assert.Throws<ArgumentException>(() => RoutePattern.WithSegment(path));
    }

    [Fact]
    public void TwoRoutesThatWouldMatchOnePathAreRefused()
    {
        var first = new Module(module => [new Route(module, 1, RoutePattern.Exact("/a"), MethodSet.Read)]);
        var second = new Module(module => [new Route(module, 1, RoutePattern.WithOptionalSegment("/a"), MethodSet.Read)]);

        ArgumentException refused = Assert.Throws<ArgumentException>(() => new RouteTable(first, second));
        Assert.Contains("/a", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void APathAloneAndAPathWithASegmentAreTwoRoutes()
    {
        var exact = new Module(module => [new Route(module, 1, RoutePattern.Exact("/a"), MethodSet.Read)]);
        var segment = new Module(module => [new Route(module, 2, RoutePattern.WithSegment("/a"), MethodSet.Read)]);
        var table = new RouteTable(exact, segment);

        Assert.True(table.TryMatch("/a"u8, out RouteMatch alone));
        Assert.Equal(1, alone.Route.Id);
        Assert.True(table.TryMatch("/a/1"u8, out RouteMatch withSegment));
        Assert.Equal(2, withSegment.Route.Id);
    }

    [Fact]
    public void ARouteListedByAModuleThatDoesNotOwnItIsRefused()
    {
        var owner = new Module(module => [new Route(module, 1, RoutePattern.Exact("/a"), MethodSet.Read)]);
        var borrower = new Module(_ => [owner.Routes[0]]);

        Assert.Throws<ArgumentException>(() => new RouteTable(borrower));
    }

    [Theory]
    [InlineData("Get,Head", "GET, HEAD")]
    [InlineData("Post", "POST")]
    [InlineData("Get,Head,Post,Options", "GET, HEAD, POST, OPTIONS")]
    public void AMethodSetNamesItsMethodsInAllowAndHoldsNoOthers(string names, string allow)
    {
        HttpMethod[] methods = [.. names.Split(',').Select(Enum.Parse<HttpMethod>)];
        var set = MethodSet.Of(methods);
        var route = new Route(new Module(_ => []), 1, RoutePattern.Exact("/m"), set);

        Assert.Equal(allow, Requests.Text(set.Allow));
        foreach (HttpMethod method in Enum.GetValues<HttpMethod>().Where(static method => method != HttpMethod.Custom))
        {
            Assert.Equal(methods.Contains(method), route.Answers(method));
        }
    }

    [Fact]
    public void NoRouteAnswersAMethodTheServerDoesNotRecognise()
    {
        Assert.Throws<ArgumentException>(() => MethodSet.Of(HttpMethod.Get, HttpMethod.Custom));
        Assert.Throws<ArgumentException>(() => MethodSet.Of());
    }

    [Fact]
    public async Task TheRouterRefusesAMethodTheRouteDoesNotListBeforeItsModuleSeesIt()
    {
        var module = new Module(module => [new Route(module, 1, RoutePattern.Exact("/post-only"), MethodSet.Of(HttpMethod.Post))]);
        await using var connection = new PipeConnection<Router>(new Router(new RouteTable(module)));
        await connection.SendAsync("GET /post-only HTTP/1.1\r\nHost: t\r\n\r\nPOST /post-only HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");

        RawResponse refused = (await connection.ReadAsync())!;
        Assert.Equal(405, refused.Status);
        Assert.Equal("POST", refused.Header("Allow"));
        Assert.Equal(200, (await connection.ReadAsync())!.Status);
        Assert.Equal(1, module.Answered);
    }

    private static string? Describe(RoutePattern pattern, string path) =>
        pattern.TryMatch(Requests.Bytes(path), out ReadOnlySpan<byte> value, out bool hasValue)
            ? (hasValue ? "/" : string.Empty) + Requests.Text(value)
            : null;

    /// <summary>A module of the routes a test gives it, each answered 200.</summary>
    private sealed class Module : IRouteModule
    {
        public Module(Func<IRouteModule, Route[]> routes) => Routes = routes(this);

        public IReadOnlyList<Route> Routes { get; }

        public int Answered { get; private set; }

        public ValueTask Answer(in RouteMatch match, HttpRequest request, HttpResponse response)
        {
            Answered++;
            response.WriteText(HttpStatus.Ok, "ok"u8);
            return default;
        }
    }
}
