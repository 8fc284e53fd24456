using System.Text.Json;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Endpoints.HttpArena;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Scripts;

/// <summary>
/// The sample in <c>samples/httparena/</c>, which <c>scripts/run.sh</c> serves when no dataset or static folder is given:
/// it loads as the venue's dataset would, and <c>/json/{count}</c> and <c>/static/{file}</c> answer from it.
/// </summary>
public class SampleDataTests
{
    private static readonly string s_datasetPath = Repository.PathOf("samples", "httparena", "dataset.json");
    private static readonly string s_staticPath = Repository.PathOf("samples", "httparena", "static");

    private static Router SampleRouter()
        => TestRouter.Create(arena: new HttpArenaRoutes(Dataset.Load(s_datasetPath), HttpArenaOptions.DefaultMaxUploadSize, new StaticFiles(s_staticPath, new FakeTimeProvider())));

    [Fact]
    public void TheSampleDatasetLoadsInTheVenuesShape()
    {
        var dataset = Dataset.Load(s_datasetPath);

        Assert.True(dataset.IsAvailable, dataset.Problem);
        Assert.Equal(8, dataset.Items.Length);
        Assert.Equal(Enumerable.Range(1, 8).Select(id => (long)id), dataset.Items.Select(item => item.Id));
    }

    [Fact]
    public async Task JsonAnswersFromTheSample()
    {
        RawResponse response = await SendAsync(Get("/json/3?m=2"), router: SampleRouter());

        Assert.Equal(200, response.Status);
        JsonElement root = JsonDocument.Parse(response.Body).RootElement;
        Assert.Equal(3, root.GetProperty("count").GetInt32());
        JsonElement[] items = [.. root.GetProperty("items").EnumerateArray()];
        Assert.Equal(["Brass Hinge", "Field Notebook", "Copper Kettle"], items.Select(item => item.GetProperty("name").GetString()));
        Assert.Equal([12 * 40 * 2, 7 * 120 * 2, 58 * 6 * 2], items.Select(item => item.GetProperty("total").GetInt64()));
    }

    [Theory]
    [InlineData("index.html", "text/html; charset=utf-8")]
    [InlineData("style.css", "text/css; charset=utf-8")]
    public async Task StaticServesTheSampleFiles(string name, string contentType)
    {
        RawResponse response = await SendAsync(Get($"/static/{name}"), router: SampleRouter());

        Assert.Equal(200, response.Status);
        Assert.Equal(contentType, response.Header("Content-Type"));
        Assert.Equal(await File.ReadAllBytesAsync(Path.Join(s_staticPath, name)), response.Body);
    }

    [Fact]
    public async Task TheSamplesGzipTwinIsTheStylesheetsOwnBytes()
    {
        // The store serves a twin only when it decompresses to the file's bytes: a stale twin would be answered as identity.
        RawResponse response = await SendAsync(Get("/static/style.css", "Accept-Encoding: gzip\r\n"), router: SampleRouter());

        Assert.Equal(200, response.Status);
        Assert.Equal("gzip", response.Header("Content-Encoding"));
        Assert.Equal(await File.ReadAllBytesAsync(Path.Join(s_staticPath, "style.css")), StaticDirectory.Ungzip(response.Body));
    }
}
