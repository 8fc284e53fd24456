using System.Text;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>The async-db parameters as HttpArena's async-database implementation.md reads them, and 400 for bad ones.</summary>
public class AsyncDatabaseQueryTests
{
    [Theory]
    [InlineData("", 10, 50, 50)]
    [InlineData("min=10&max=50&limit=20", 10, 50, 20)]
    [InlineData("min=5&max=80&limit=7", 5, 80, 7)]
    [InlineData("limit=33&max=400&min=100", 100, 400, 33)]
    [InlineData("min=&max=&limit=", 10, 50, 50)]
    [InlineData("min&max&limit", 10, 50, 50)]
    [InlineData("limit=0", 10, 50, 1)]
    [InlineData("limit=-4", 10, 50, 1)]
    [InlineData("limit=51", 10, 50, 50)]
    [InlineData("limit=99999999999999999999", 10, 50, 50)]
    [InlineData("min=-5&max=%2B7", -5, 7, 50)]
    [InlineData("min=9999&max=9999", 9999, 9999, 50)]
    [InlineData("min=50&max=10", 50, 10, 50)]
    [InlineData("min=-99999999999&max=99999999999", int.MinValue, int.MaxValue, 50)]
    [InlineData("min=%31%30&max=2%30", 10, 20, 50)]
    [InlineData("other=x&limit=5", 10, 50, 5)]
    public void ParametersAreReadWithTheVenuesDefaultsAndClamps(string query, int min, int max, int limit)
    {
        Assert.True(AsyncDatabaseQuery.TryParse(Encoding.ASCII.GetBytes(query), out AsyncDatabaseQuery parsed, out string? error), error);
        Assert.Equal(new AsyncDatabaseQuery(min, max, limit), parsed);
    }

    [Theory]
    [InlineData("min=abc", "min")]
    [InlineData("min=1.5", "min")]
    [InlineData("min=-", "min")]
    [InlineData("min=%2B", "min")]
    [InlineData("min=+7", "min")]
    [InlineData("min=1e3", "min")]
    [InlineData("min= 5", "min")]
    [InlineData("min=0x10", "min")]
    [InlineData("max=5a", "max")]
    [InlineData("max=--5", "max")]
    [InlineData("limit=ten", "limit")]
    [InlineData("limit=2.0", "limit")]
    [InlineData("min=1&max=2&limit=%33x", "limit")]
    public void ANonIntegerIsRefusedNamingItsParameter(string query, string parameter)
    {
        Assert.False(AsyncDatabaseQuery.TryParse(Encoding.ASCII.GetBytes(query), out _, out string? error));
        Assert.Equal($"Query parameter '{parameter}' must be an integer.\n", error);
    }

    [Theory]
    [InlineData("/async-db?min=abc", 400, "Query parameter 'min' must be an integer.\n")]
    [InlineData("/async-db?limit=", 503, "No database configured.\n")]
    public async Task TheRouteAnswersBadParametersWith400BeforeAnyDatabase(string target, int status, string body)
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync($"GET {target} HTTP/1.1\r\nHost: t\r\n\r\n");
        RawResponse response = (await connection.ReadAsync())!;

        Assert.Equal(status, response.Status);
        Assert.Equal(body, response.BodyText);
    }

    [Theory]
    [InlineData("POST")]
    [InlineData("PUT")]
    public async Task OtherMethodsGet405WithAllow(string method)
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync($"{method} /async-db HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
        RawResponse response = (await connection.ReadAsync())!;

        Assert.Equal(405, response.Status);
        Assert.Equal("GET, HEAD", response.Header("Allow"));
    }
}
