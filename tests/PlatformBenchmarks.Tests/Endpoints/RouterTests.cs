using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints;

/// <summary>The route table: what it does not name is a 404, never a handler.</summary>
public class RouterTests
{
    /// <summary>Paths one character or one segment away from every route of the table, and a few of every length.</summary>
    public static TheoryData<string> PathsNearRoutes()
    {
        var data = new TheoryData<string>();
        var paths = new HashSet<string>(StringComparer.Ordinal) { "//", "/x", "/ech", "/echo/", "/cookies", "/cached", "/cached-", "/query", "/update" };
        foreach (Route route in TfbRoutes())
        {
            string name = route.Pattern.Path;
            paths.Add(name[..^1]);                 // one short
            paths.Add(name + "x");                 // one long
            paths.Add(name.ToUpperInvariant());    // paths are case-sensitive
            paths.Add("/x" + name);                // prefixed
            paths.Add(name + "/1/2");              // one segment too many
            if (!route.Pattern.MatchesMore)
            {
                paths.Add(name + "/");

                // /json/1 is HttpArena's json route (Endpoints/HttpArena), not a near miss of TFB's /json.
                if (name != "/json")
                {
                    paths.Add(name + "/1");
                }
            }
        }

        foreach (string path in paths)
        {
            data.Add(path);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(PathsNearRoutes))]
    public async Task APathTheTableDoesNotNameIsNotFound(string path)
    {
        // A router without a database: a path that reached a database handler would fail with a 500, not a 404.
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync($"GET {path} HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal(404, (await connection.ReadAsync())!.Status);
    }

    [Theory]
    [InlineData("get /plaintext")]   // methods are case-sensitive (RFC 9110 §9.1)
    [InlineData("FOO /plaintext")]
    [InlineData("FOO /nowhere")]
    [InlineData("M-SEARCH /x")]
    [InlineData("CONNECT example.com:443")]
    public async Task AMethodTheServerDoesNotRecogniseIsNotImplementedOnAnyPath(string methodAndTarget)
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync($"{methodAndTarget} HTTP/1.1\r\nHost: t\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal(501, (await connection.ReadAsync())!.Status);
        Assert.Equal(200, (await connection.ReadAsync())!.Status);
    }

    [Theory]
    [InlineData("*", 200)]
    [InlineData("/plaintext", 405)]
    [InlineData("/nowhere", 404)]
    public async Task OptionsIsAnsweredForTheServerAsAWholeAndRefusedOnARoute(string target, int status)
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync($"OPTIONS {target} HTTP/1.1\r\nHost: t\r\n\r\n");

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(status, response.Status);
        if (status != 404)
        {
            Assert.Equal("GET, HEAD", response.Header("Allow"));
        }

        if (status == 200)
        {
            Assert.Equal("0", response.Header("Content-Length"));
            Assert.Equal(string.Empty, response.BodyText);
        }
    }

    /// <summary>The TFB module's routes, as the server's router holds them.</summary>
    internal static IEnumerable<Route> TfbRoutes() => TestRouter.Create().Table.Routes.Where(static route => route.Module is TfbRoutes);

    [Fact]
    public void TheTableNamesEachTfbTestOnceAndEveryCountRouteInBothForms()
    {
        string[] forms = [.. TfbRoutes().SelectMany(route => route.Forms)];

        Assert.Equal(
            [
                "/plaintext", "/json", "/db", "/fortunes", "/queries/{count}", "/queries?queries={count}", "/updates/{count}",
                "/updates?queries={count}", "/cached-worlds/{count}", "/cached-worlds?count={count}", "/cached-queries/{count}",
                "/cached-queries?count={count}",
            ],
            forms);
    }
}

/// <summary>Every form the start-up banner prints (it reads the router's table) answers over real sockets.</summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class RouteTableEndToEndTests(ServerFixture server) : IClassFixture<ServerFixture>
{
    public static TheoryData<string> BannerForms()
    {
        var data = new TheoryData<string>();
        foreach (string form in RouterTests.TfbRoutes().SelectMany(route => route.Forms))
        {
            data.Add(form.Replace("{count}", "3", StringComparison.Ordinal));
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(BannerForms))]
    public async Task EveryRouteTheBannerPrintsAnswers200(string target)
    {
        Assert.Equal(200, (await server.GetAsync(target)).Status);
    }
}
