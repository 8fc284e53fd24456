using System.Text.Json;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>The database routes over real sockets against the real local PostgreSQL, checked as TFB's verifier checks them.</summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseRouteTests(ServerFixture server) : IClassFixture<ServerFixture>
{
    /// <summary>The fortunes page, byte for byte (docs/tfb-rules.md §4.5).</summary>
    private const string ExpectedFortunes =
        "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>"
        + "<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>"
        + "<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>"
        + "<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>"
        + "<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>"
        + "<tr><td>8</td><td>A list is only as strong as its weakest link. \u2014 Donald Knuth</td></tr>"
        + "<tr><td>0</td><td>Additional fortune added at request time.</td></tr>"
        + "<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>"
        + "<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>"
        + "<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>"
        + "<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen</td></tr>"
        + "<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>"
        + "<tr><td>1</td><td>fortune: No such file or directory</td></tr>"
        + "<tr><td>12</td><td>\u30d5\u30ec\u30fc\u30e0\u30ef\u30fc\u30af\u306e\u30d9\u30f3\u30c1\u30de\u30fc\u30af</td></tr>"
        + "</table></body></html>";

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
        Assert.Equal(ExpectedFortunes, response.BodyText);
        Assert.Equal(response.Body.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), response.Header("Content-Length"));
    }

    [Fact]
    public async Task HeadOnADatabaseRouteHasTheFieldsAndNoBody()
    {
        RawResponse response = await server.GetAsync("/fortunes", "HEAD");

        Assert.Equal(200, response.Status);
        Assert.Equal("text/html; charset=utf-8", response.Header("Content-Type"));
        Assert.Equal(System.Text.Encoding.UTF8.GetByteCount(ExpectedFortunes).ToString(System.Globalization.CultureInfo.InvariantCulture), response.Header("Content-Length"));
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
                    Assert.Equal(ExpectedFortunes, response.BodyText);
                    break;
                default:
                    int expected = int.Parse(target[(target.LastIndexOf('/') + 1)..], System.Globalization.CultureInfo.InvariantCulture);
                    Assert.Equal(expected, JsonDocument.Parse(response.Body).RootElement.GetArrayLength());
                    break;
            }
        }
    }
}
