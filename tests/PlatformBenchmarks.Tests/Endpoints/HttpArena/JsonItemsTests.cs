using System.Text.Json;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>HttpArena's json profile: <c>GET /json/{count}?m=</c> over the dataset, totals computed per request.</summary>
public class JsonItemsTests
{
    private static readonly Router s_router = TestDataset.Router();

    private static async Task<JsonElement> GetJsonAsync(string target)
    {
        RawResponse response = await SendAsync(Get(target), router: s_router);
        Assert.Equal(200, response.Status);
        Assert.Equal("application/json", response.Header("Content-Type"));
        return JsonDocument.Parse(response.Body).RootElement;
    }

    [Theory]
    [InlineData("/json/3?m=7", 3, 7)]
    [InlineData("/json/2?m=1", 2, 1)]
    [InlineData("/json/1?m=-2", 1, -2)]
    [InlineData("/json/3?m=0", 3, 0)]
    [InlineData("/json/2", 2, 1)]
    [InlineData("/json/2?m=", 2, 1)]
    [InlineData("/json/2?x=1&m=%35", 2, 5)]
    public async Task EachItemCarriesPriceTimesQuantityTimesM(string target, int count, long m)
    {
        JsonElement root = await GetJsonAsync(target);

        Assert.Equal(count, root.GetProperty("count").GetInt32());
        JsonElement[] items = [.. root.GetProperty("items").EnumerateArray()];
        Assert.Equal(count, items.Length);
        for (int i = 0; i < count; i++)
        {
            Assert.Equal(i + 1, items[i].GetProperty("id").GetInt32());
            long expected = items[i].GetProperty("price").GetInt64() * items[i].GetProperty("quantity").GetInt64() * m;
            Assert.Equal(expected, items[i].GetProperty("total").GetInt64());
        }
    }

    [Fact]
    public async Task AnItemIsWrittenWithEveryMemberInTheVenuesOrder()
    {
        RawResponse response = await SendAsync(Get("/json/1?m=3"), router: s_router);

        Assert.Equal(
            """{"items":[{"id":1,"name":"Alpha Widget","category":"electronics","price":328,"quantity":15,"active":true,"tags":["sale","heavy-duty"],"rating":{"score":48,"count":53},"total":14760}],"count":1}""",
            response.BodyText);
    }

    [Fact]
    public async Task StringsAreEscapedAndReadBackAsTheyWere()
    {
        JsonElement item = (await GetJsonAsync("/json/2")).GetProperty("items")[1];

        Assert.Equal("Pro \"Valve\" \u00e9", item.GetProperty("name").GetString());
        Assert.False(item.GetProperty("active").GetBoolean());
        Assert.Equal(0, item.GetProperty("tags").GetArrayLength());
    }

    [Theory]
    [InlineData("/json/0", 0)]
    [InlineData("/json/4", 3)]
    [InlineData("/json/50", 3)]
    public async Task ACountPastTheDatasetGivesEveryItemAndSaysHowMany(string target, int count)
    {
        JsonElement root = await GetJsonAsync(target);

        Assert.Equal(count, root.GetProperty("count").GetInt32());
        Assert.Equal(count, root.GetProperty("items").GetArrayLength());
    }

    [Fact]
    public async Task TheTotalsChangeWithMOnTheSamePath()
    {
        JsonElement three = await GetJsonAsync("/json/1?m=3");
        JsonElement four = await GetJsonAsync("/json/1?m=4");

        Assert.Equal(14760, three.GetProperty("items")[0].GetProperty("total").GetInt64());
        Assert.Equal(19680, four.GetProperty("items")[0].GetProperty("total").GetInt64());
    }

    [Theory]
    [InlineData("/json/x", "The count must be an integer of 0 or more.\n")]
    [InlineData("/json/-1", "The count must be an integer of 0 or more.\n")]
    [InlineData("/json/1.5", "The count must be an integer of 0 or more.\n")]
    [InlineData("/json/1?m=two", "Query parameter 'm' must be an integer.\n")]
    [InlineData("/json/1?m=1e3", "Query parameter 'm' must be an integer.\n")]
    [InlineData("/json/1?m=922337203685477", "Query parameter 'm' is too large: a total would not fit in a 64-bit integer.\n")]
    [InlineData("/json/1?m=-9223372036854775808", "Query parameter 'm' is too large: a total would not fit in a 64-bit integer.\n")]
    public async Task BadNumbersGet400WithTheReason(string target, string reason)
    {
        RawResponse response = await SendAsync(Get(target), router: s_router);

        Assert.Equal(400, response.Status);
        Assert.Equal(reason, response.BodyText);
    }

    [Fact]
    public async Task TheLargestMultiplierThatFitsIsAnswered()
    {
        // The largest price × quantity of the test dataset is 347 × 95.
        long m = long.MaxValue / (347 * 95);
        JsonElement root = await GetJsonAsync($"/json/3?m={m}");

        Assert.Equal(347L * 95 * m, root.GetProperty("items")[1].GetProperty("total").GetInt64());
    }

    [Theory]
    [InlineData("/json")]
    [InlineData("/json/")]
    [InlineData("/json/1/2")]
    public async Task PathsThatAreNotOneCountAreNotThisRoute(string target)
    {
        RawResponse response = await SendAsync(Get(target), router: s_router);

        // /json is TFB's route; the others are no route at all.
        Assert.Equal(target == "/json" ? "{\"message\":\"Hello, World!\"}" : "Not found.\n", response.BodyText);
    }

    [Fact]
    public async Task WithoutADatasetTheRouteAnswers503WithTheReason()
    {
        RawResponse response = await SendAsync(Get("/json/1"), router: TestDataset.Router(Dataset.Load("/nonexistent/dataset.json")));

        Assert.Equal(503, response.Status);
        Assert.StartsWith("The dataset is not loaded: /nonexistent/dataset.json could not be read: ", response.BodyText, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARouterWithoutSettingsHasNoDatasetButTheOtherRoutesAnswer()
    {
        Assert.Equal(503, (await SendAsync(Get("/json/1"))).Status);
        Assert.Equal("ok", (await SendAsync(Get("/pipeline"))).BodyText);
    }
}
