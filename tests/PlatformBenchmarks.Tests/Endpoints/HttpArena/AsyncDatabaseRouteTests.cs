using System.Text.Json;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>GET /async-db through the router against the local PostgreSQL, checked as HttpArena's validate.sh checks it.</summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class AsyncDatabaseRouteTests
{
    private static async Task<RawResponse> GetAsync(string target, string method = "GET")
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create(TestDatabase.Shared(Mode.Multiplexing), null!));
        await connection.SendAsync($"{method} {target} HTTP/1.1\r\nHost: t\r\n\r\n");
        return (await connection.ReadAsync(head: method == "HEAD"))!;
    }

    [Theory]
    [InlineData("min=5&max=80&limit=7", 7)]
    [InlineData("min=20&max=150&limit=18", 18)]
    [InlineData("min=100&max=400&limit=33", 33)]
    [InlineData("min=10&max=50&limit=50", 50)]
    [InlineData("", 50)]
    [InlineData("limit=500", 50)]
    public async Task TheAnswerHasTheVenuesShapeAndCount(string query, int count)
    {
        RawResponse response = await GetAsync($"/async-db?{query}");

        Assert.Equal(200, response.Status);
        Assert.Equal("application/json", response.Header("Content-Type"));
        using var json = JsonDocument.Parse(response.Body);
        Assert.Equal(["items", "count"], json.RootElement.EnumerateObject().Select(property => property.Name));
        Assert.Equal(count, json.RootElement.GetProperty("count").GetInt32());
        JsonElement[] items = [.. json.RootElement.GetProperty("items").EnumerateArray()];
        Assert.Equal(count, items.Length);
        Assert.All(items, item =>
        {
            Assert.Equal(["id", "name", "category", "price", "quantity", "active", "tags", "rating"], item.EnumerateObject().Select(property => property.Name));
            Assert.Equal(JsonValueKind.Number, item.GetProperty("price").ValueKind);
            Assert.True(item.GetProperty("price").TryGetInt32(out _));
            Assert.True(item.GetProperty("active").ValueKind is JsonValueKind.True or JsonValueKind.False);
            Assert.Equal(JsonValueKind.Array, item.GetProperty("tags").ValueKind);
            Assert.All(item.GetProperty("tags").EnumerateArray(), tag => Assert.Equal(JsonValueKind.String, tag.ValueKind));
            Assert.Equal(["score", "count"], item.GetProperty("rating").EnumerateObject().Select(property => property.Name));
        });
    }

    [Fact]
    public async Task AnEmptyRangeAnswersCountZero()
    {
        RawResponse response = await GetAsync("/async-db?min=9999&max=9999&limit=50");

        Assert.Equal(200, response.Status);
        Assert.Equal("""{"items":[],"count":0}""", response.BodyText);
    }

    [Fact]
    public async Task HeadGetsTheFieldsWithoutTheBody()
    {
        RawResponse response = await GetAsync("/async-db?min=1&max=500&limit=5", "HEAD");

        Assert.Equal(200, response.Status);
        Assert.Empty(response.Body);
        Assert.True(int.Parse(response.Header("Content-Length")!, System.Globalization.CultureInfo.InvariantCulture) > 100);
    }

    [Fact]
    public async Task AnUnreachableDatabaseAnswers503()
    {
        await using PlatformBenchmarks.Data.Database database = TestDatabase.Create(Mode.Multiplexing, "Port=1;Timeout=1");
        await using var connection = new PipeConnection<Router>(TestRouter.Create(database, null!));
        await connection.SendAsync("GET /async-db HTTP/1.1\r\nHost: t\r\n\r\n");
        RawResponse response = (await connection.ReadAsync())!;

        Assert.Equal(503, response.Status);
        Assert.StartsWith("database unavailable", response.BodyText, StringComparison.Ordinal);
    }
}
