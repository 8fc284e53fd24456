using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints;

/// <summary>How the database routes answer when the data layer hands back a failure instead of rows.</summary>
public class DatabaseErrorsTests
{
    [Fact]
    public void NoEndpointSourceNamesTheDriver()
    {
        // The data layer hands back outcomes of its own (DataResult): what the endpoints answer never depends on Npgsql's types.
        string endpoints = Repository.PathOf("src", "PlatformBenchmarks", "Endpoints");
        string[] sources = Directory.GetFiles(endpoints, "*.cs", SearchOption.AllDirectories);

        Assert.NotEmpty(sources);
        Assert.All(sources, source => Assert.DoesNotContain("Npgsql", File.ReadAllText(source), StringComparison.OrdinalIgnoreCase));
    }

    [Theory]
    [Trait(TestCategory.Name, TestCategory.System)]
    [InlineData("/db")]
    [InlineData("/queries?queries=20")]
    [InlineData("/updates?queries=20")]
    [InlineData("/fortunes")]
    public async Task AFailingStatementAnswers500AndKeepsTheConnection(string target)
    {
        // The cluster's "postgres" database answers but holds no world or fortune table: every statement fails (42P01).
        var settings = new NpgsqlConnectionStringBuilder(TestDatabase.ConnectionString) { Database = "postgres" };
        await using var database = new Database(new DatabaseOptions { ConnectionString = settings.ConnectionString }, new FakeTimeProvider(), NullLogger.Instance);
        await using var connection = new PipeConnection<Router>(TestRouter.Create(database, null!));

        await connection.SendAsync($"GET {target} HTTP/1.1\r\nHost: t\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n");
        RawResponse failed = (await connection.ReadAsync())!;
        RawResponse next = (await connection.ReadAsync())!;

        Assert.Equal(500, failed.Status);
        Assert.Equal("Database error.\n", failed.BodyText);
        Assert.Equal(200, next.Status);
    }
}
