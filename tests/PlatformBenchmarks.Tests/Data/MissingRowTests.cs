using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>
/// A database that answers but is not loaded: a schema of its own whose world and fortune tables are empty, reached
/// through the connection's search path. Every world read then misses its row.
/// </summary>
[Trait(TestCategory.Name, TestCategory.System)]
public sealed class MissingRowTests : IAsyncLifetime
{
    // One schema per test instance: test runs that overlap on one cluster do not meet.
    private readonly string _schema = $"missing_rows_{Guid.NewGuid():N}";

    public async Task InitializeAsync()
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using var command = new NpgsqlCommand(
            $"CREATE SCHEMA {_schema}; "
                + $"CREATE TABLE {_schema}.world (id integer PRIMARY KEY, randomnumber integer NOT NULL); "
                + $"CREATE TABLE {_schema}.fortune (id integer PRIMARY KEY, message varchar(2048) NOT NULL)",
            connection);
        await command.ExecuteNonQueryAsync();
    }

    public async Task DisposeAsync()
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using var command = new NpgsqlCommand($"DROP SCHEMA {_schema} CASCADE", connection);
        await command.ExecuteNonQueryAsync();
    }

    private Database Create(Mode mode) => new(TestDatabase.Options(mode, $"Search Path={_schema}"), new FakeTimeProvider(), NullLogger.Instance);

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task EveryWorldReadOfAnEmptyTableIsAMissingRowAndNoOutage(Mode mode)
    {
        await using Database database = Create(mode);

        // Twice over: a breaker that took a missing row for an outage would answer the second round "failing fast".
        for (int round = 0; round < 2; round++)
        {
            DataFailure single = MissingRow((await database.LoadSingleWorldAsync()).Failure);
            MissingRow((await database.LoadWorldsAsync(20)).Failure);
            MissingRow((await database.UpdateWorldsAsync(5)).Failure);
            Assert.Matches("^the world table has no row [1-9][0-9]*: is the database loaded\\?$", single.Reason);
        }

        Assert.Empty((await database.LoadFortunesAsync()).Value);
    }

    [Fact]
    public async Task AMissingRowReadThroughTheCacheIsAMissingRow()
    {
        await using Database database = Create(Mode.Multiplexing);
        using var cache = new WorldCache(database, new FakeTimeProvider());

        DatabaseStatus warmUp = await cache.TryWarmUpAsync();

        Assert.True(warmUp.IsAvailable, warmUp.Description);
        MissingRow((await cache.GetCachedWorldsAsync(3)).Failure);
    }

    [Fact]
    public async Task TheStartUpProbeReportsTheMissingRow()
    {
        await using Database database = Create(Mode.Multiplexing);

        DatabaseStatus status = await database.TryWarmUpAsync();

        Assert.False(status.IsAvailable);
        Assert.Contains("the world table has no row", status.Description, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheDbRouteAnswers500WithTheReasonAndKeepsTheConnection()
    {
        await using Database database = Create(Mode.Multiplexing);
        await using var connection = new PipeConnection<Router>(TestRouter.Create(database, null!));

        await connection.SendAsync("GET /db HTTP/1.1\r\nHost: t\r\n\r\nGET /queries?queries=3 HTTP/1.1\r\nHost: t\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n");
        RawResponse single = (await connection.ReadAsync())!;
        RawResponse multiple = (await connection.ReadAsync())!;
        RawResponse plaintext = (await connection.ReadAsync())!;

        Assert.Equal(500, single.Status);
        Assert.StartsWith("the world table has no row ", single.BodyText, StringComparison.Ordinal);
        Assert.Equal(500, multiple.Status);
        Assert.StartsWith("the world table has no row ", multiple.BodyText, StringComparison.Ordinal);
        Assert.Equal(200, plaintext.Status);
        Assert.Null(single.Header("Connection"));
    }

    private static DataFailure MissingRow(DataFailure? failure)
    {
        Assert.NotNull(failure);
        Assert.Equal(DataOutcome.MissingRow, failure.Outcome);
        return failure;
    }
}
