using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>HttpArena's routes as the server is built with them: what the banner lists, and the settings they read.</summary>
public class HttpArenaRoutesTests
{
    [Fact]
    public async Task EveryRouteTheBannerListsAnswers200()
    {
        // The static and async-db routes need a directory and a database: StaticRouteTests and AsyncDatabaseRouteTests have them.
        // /ws answers a WebSocket handshake with 101 and a plain GET with 400, as the venue's peer does (WebSocketServerTests).
        Router router = TestDataset.Router();
        Assert.Equal(400, (await SendAsync(Get("/ws"), router: router)).Status);
        foreach (string form in router.Table.Routes.Where(static route => route.Module is HttpArenaRoutes).SelectMany(static route => route.Forms)
                     .Where(static form => !form.StartsWith("/static/", StringComparison.Ordinal) && !form.StartsWith("/async-db", StringComparison.Ordinal) && form != "/ws"))
        {
            string target = form.Replace("{a}", "1", StringComparison.Ordinal).Replace("{b}", "2", StringComparison.Ordinal)
                .Replace("{count}", "2", StringComparison.Ordinal).Replace("{m}", "3", StringComparison.Ordinal);
            string request = target == "/upload" ? PostWithLength(target, "data") : Get(target);

            Assert.Equal(200, (await SendAsync(request, router: router)).Status);
        }
    }

    [Theory]
    [InlineData("PUT", "/baseline11?a=1&b=2", "GET, HEAD, POST")]
    [InlineData("DELETE", "/baseline11", "GET, HEAD, POST")]
    [InlineData("OPTIONS", "/baseline11", "GET, HEAD, POST")]
    [InlineData("POST", "/pipeline", "GET, HEAD")]
    [InlineData("OPTIONS", "/pipeline", "GET, HEAD")]
    [InlineData("POST", "/json/1", "GET, HEAD")]
    [InlineData("OPTIONS", "/json/1?m=2", "GET, HEAD")]
    [InlineData("GET", "/upload", "POST")]
    [InlineData("HEAD", "/upload", "POST")]
    [InlineData("PUT", "/upload", "POST")]
    [InlineData("OPTIONS", "/upload", "POST")]
    [InlineData("POST", "/ws", "GET")]
    [InlineData("HEAD", "/ws", "GET")]
    public async Task OtherMethodsGet405NamingTheRoutesOwn(string method, string target, string allow)
    {
        RawResponse response = await SendAsync($"{method} {target} HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n", head: method == "HEAD", router: TestDataset.Router());

        Assert.Equal(405, response.Status);
        Assert.Equal(allow, response.Header("Allow"));
    }

    [Fact]
    public async Task TheServerReadsTheDatasetFromItsSettingAndTakesTheUploadLimit()
    {
        string path = Path.GetTempFileName();
        await File.WriteAllTextAsync(path, TestDataset.Json);
        try
        {
            HttpArenaRoutes routes = await BoundRoutesAsync("--HttpArena:DatasetPath", path, "--HttpArena:MaxUploadSize", "123");

            Assert.True(routes.Dataset.IsAvailable);
            Assert.Equal(3, routes.Dataset.Items.Length);
            Assert.Equal(123, routes.MaxUploadSize);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task ByDefaultTheDatasetIsWhereTheVenueMountsItAndUploadsTake256MiB()
    {
        HttpArenaRoutes routes = await BoundRoutesAsync();

        Assert.Equal(File.Exists("/data/dataset.json"), routes.Dataset.IsAvailable);
        Assert.Contains("/data/dataset.json", routes.Dataset.Description, StringComparison.Ordinal);
        Assert.Equal(256L * 1024 * 1024, routes.MaxUploadSize);
    }

    [Theory]
    [InlineData("DatasetPath", " ")]
    [InlineData("MaxUploadSize", "-1")]
    [InlineData("MaxUploadSize", "20MB")]
    public async Task AnUnusableSettingStopsTheServerAtStartUpNamingTheKey(string key, string value)
    {
        SettingsException exception = await Assert.ThrowsAsync<SettingsException>(() => BoundRoutesAsync($"--HttpArena:{key}", value));

        Assert.Contains($"'HttpArena:{key}'", exception.Message, StringComparison.Ordinal);
    }

    /// <summary>The routes the server's host builds for these command-line arguments.</summary>
    private static async Task<HttpArenaRoutes> BoundRoutesAsync(params string[] args)
    {
        WebApplication app = Program.BuildApplication(["--urls", "http://127.0.0.1:0", .. args], new FakeTimeProvider());
        await using (app)
        {
            return app.Services.GetRequiredService<HttpArenaRoutes>();
        }
    }
}
