using System.Text.Json;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>The database routes over real sockets against the real local PostgreSQL, checked as TFB's verifier checks them.</summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseRouteTests(ServerFixture server) : IClassFixture<ServerFixture>
{

    public static TheoryData<string, string, int> CountCases()
    {
        var data = new TheoryData<string, string, int>();
        string[] prefixes = ["/queries/", "/queries?queries=", "/updates/", "/updates?queries=", "/cached-worlds/", "/cached-queries?count="];
        (string Value, int Expected)[] cases = [("2", 2), ("0", 1), ("foo", 1), ("501", 500), ("", 1), ("-5", 1), ("2147483648", 500), ("20", 20)];
        foreach (string prefix in prefixes)
        {
            foreach ((string value, int expected) in cases)
            {
                data.Add(prefix, value, expected);
            }
        }

        return data;
    }

    private static (int Id, int RandomNumber) AssertWorld(JsonElement element)
    {
        Assert.Equal(JsonValueKind.Object, element.ValueKind);
        Assert.Equal(["id", "randomNumber"], element.EnumerateObject().Select(p => p.Name).ToArray());
        int id = element.GetProperty("id").GetInt32();
        int randomNumber = element.GetProperty("randomNumber").GetInt32();
        Assert.InRange(id, 1, 10000);
        Assert.InRange(randomNumber, 1, 10000);
        return (id, randomNumber);
    }

    private static void AssertJsonHeaders(RawResponse response)
    {
        Assert.Equal(200, response.Status);
        Assert.Equal("application/json", response.Header("Content-Type"));
        Assert.Equal("PB", response.Header("Server"));
        Assert.NotNull(response.Header("Date"));
    }

    [Fact]
    public async Task DbAnswersOneRandomWorldObject()
    {
        var ids = new HashSet<int>();
        for (int i = 0; i < 20; i++)
        {
            RawResponse response = await server.GetAsync("/db");
            AssertJsonHeaders(response);
            using var json = JsonDocument.Parse(response.Body);
            ids.Add(AssertWorld(json.RootElement).Id);
        }

        Assert.True(ids.Count > 15, "ids are not random");
    }

    [Theory]
    [MemberData(nameof(CountCases))]
    public async Task CountRoutesAnswerAnArrayOfTheSanitisedLength(string prefix, string value, int expected)
    {
        RawResponse response = await server.GetAsync(prefix + value);

        AssertJsonHeaders(response);
        using var json = JsonDocument.Parse(response.Body);
        Assert.Equal(JsonValueKind.Array, json.RootElement.ValueKind);
        Assert.Equal(expected, json.RootElement.GetArrayLength());
        foreach (JsonElement element in json.RootElement.EnumerateArray())
        {
            AssertWorld(element);
        }
    }

    [Theory]
    [InlineData("/queries")]
    [InlineData("/updates")]
    [InlineData("/cached-worlds")]
    [InlineData("/cached-queries")]
    public async Task BareCountRoutesAnswerOneRow(string path)
    {
        RawResponse response = await server.GetAsync(path);

        AssertJsonHeaders(response);
        using var json = JsonDocument.Parse(response.Body);
        Assert.Equal(1, json.RootElement.GetArrayLength());
    }

    [Fact]
    public async Task UpdatesArePersistedWithDistinctIdsBeforeTheResponse()
    {
        int[] before = await TestDatabase.ReadWorldTableAsync();
        RawResponse response = await server.GetAsync("/updates/20");
        int[] after = await TestDatabase.ReadWorldTableAsync();

        using var json = JsonDocument.Parse(response.Body);
        (int Id, int RandomNumber)[] rows = json.RootElement.EnumerateArray().Select(AssertWorld).ToArray();
        Assert.Equal(20, rows.Length);
        Assert.Equal(20, rows.Select(r => r.Id).Distinct().Count());
        foreach ((int id, int randomNumber) in rows)
        {
            Assert.Equal(randomNumber, after[id]);
            Assert.NotEqual(before[id], after[id]);
        }
    }

    [Fact]
    public async Task FortunesPageIsExactlyTheExpectedOne()
    {
        RawResponse response = await server.GetAsync("/fortunes");

        Assert.Equal(200, response.Status);
        Assert.Equal("text/html; charset=utf-8", response.Header("Content-Type"));
        Assert.Equal(TfbFortunes.ExpectedPage, response.BodyText);
        Assert.Equal(response.Body.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), response.Header("Content-Length"));
    }

    [Fact]
    public async Task HeadOnADatabaseRouteHasTheFieldsAndNoBody()
    {
        RawResponse response = await server.GetAsync("/fortunes", "HEAD");

        Assert.Equal(200, response.Status);
        Assert.Equal("text/html; charset=utf-8", response.Header("Content-Type"));
        Assert.Equal(System.Text.Encoding.UTF8.GetByteCount(TfbFortunes.ExpectedPage).ToString(System.Globalization.CultureInfo.InvariantCulture), response.Header("Content-Length"));
    }

    [Fact]
    public async Task PipelinedDatabaseRequestsAreAnsweredInOrder()
    {
        using RawClient client = await server.ConnectAsync();
        string[] targets = ["/db", "/queries/3", "/plaintext", "/fortunes", "/updates/2", "/json", "/cached-worlds/4", "/queries/1"];
        await client.SendAsync(string.Concat(targets.Select(t => $"GET {t} HTTP/1.1\r\nHost: tfb-server\r\n\r\n")));

        foreach (string target in targets)
        {
            RawResponse response = (await client.ReadAsync())!;
            Assert.Equal(200, response.Status);
            switch (target)
            {
                case "/db":
                    AssertWorld(JsonDocument.Parse(response.Body).RootElement);
                    break;
                case "/plaintext":
                    Assert.Equal("Hello, World!", response.BodyText);
                    break;
                case "/json":
                    Assert.Equal("{\"message\":\"Hello, World!\"}", response.BodyText);
                    break;
                case "/fortunes":
                    Assert.Equal(TfbFortunes.ExpectedPage, response.BodyText);
                    break;
                default:
                    int expected = int.Parse(target[(target.LastIndexOf('/') + 1)..], System.Globalization.CultureInfo.InvariantCulture);
                    Assert.Equal(expected, JsonDocument.Parse(response.Body).RootElement.GetArrayLength());
                    break;
            }
        }
    }
}
