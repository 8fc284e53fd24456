using Npgsql;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>
/// The harness's query-count check (tfb-rules.md §6), reproduced: reset pg_stat_statements, fire 512 concurrent requests,
/// then sum calls and rows over the statements whose text names the table as a whole word, the rows split by whether the
/// text contains "select" or "update". We expect the exact counts, stricter than the harness's -0%/+5%.
/// </summary>
[Collection(ExclusiveDatabaseTests.Name)]
public class StatementCountTests
{
    private const int N = 512;

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.MultiplexingSequential)]
    [InlineData(Mode.Pooled)]
    [InlineData(Mode.PooledSequential)]
    public async Task StatementsAndRowsAreExactlyWhatTheHarnessExpects(Mode mode)
    {
        await using var database = TestDatabase.Create(mode);
        Assert.True((await database.TryWarmUpAsync()).IsAvailable);

        Assert.Equal(new StatementCounts(N, N, 0), await MeasureAsync("world", () => database.LoadSingleWorldAsync().AsTask()));
        Assert.Equal(new StatementCounts(20 * N, 20 * N, 0), await MeasureAsync("world", () => database.LoadWorldsAsync(20).AsTask()));
        // Bulk mode: 20 reads and exactly one UPDATE per request, 21N within the harness's ±0.1% (§6).
        Assert.Equal(new StatementCounts(21 * N, 20 * N, 20 * N), await MeasureAsync("world", () => database.UpdateWorldsAsync(20).AsTask()));
        Assert.Equal(new StatementCounts(N, 12 * N, 0), await MeasureAsync("fortune", () => database.LoadFortunesAsync().AsTask()));
    }

    [Fact]
    public async Task AWarmCacheRunsNoStatementsAtAll()
    {
        await using var database = TestDatabase.Create(Mode.Multiplexing);
        using var cache = new WorldCache(database);
        Assert.True((await cache.TryWarmUpAsync()).IsAvailable);

        Assert.Equal(new StatementCounts(0, 0, 0), await MeasureAsync("world", () => cache.GetCachedWorldsAsync(100).AsTask()));
    }

    private static async Task<StatementCounts> MeasureAsync(string table, Func<Task> request)
    {
        await using var connection = await TestDatabase.OpenDirectAsync();
        await using (var reset = new NpgsqlCommand("SELECT pg_stat_statements_reset()", connection))
        {
            await reset.ExecuteNonQueryAsync();
        }

        await Task.WhenAll(Enumerable.Range(0, N).Select(_ => request()));

        // The table name comes in as a parameter so that this statement's own text does not name the table and count itself.
        await using var command = new NpgsqlCommand(
            """
            SELECT coalesce(sum(calls), 0)::bigint,
                   coalesce(sum(rows) FILTER (WHERE query ~* 'select'), 0)::bigint,
                   coalesce(sum(rows) FILTER (WHERE query ~* 'update'), 0)::bigint
            FROM pg_stat_statements
            WHERE query ~* ('[[:<:]]' || $1 || '[[:>:]]')
            """,
            connection);
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = table });
        await using var reader = await command.ExecuteReaderAsync();
        Assert.True(await reader.ReadAsync());
        return new StatementCounts(reader.GetInt64(0), reader.GetInt64(1), reader.GetInt64(2));
    }

    private readonly record struct StatementCounts(long Queries, long RowsRead, long RowsUpdated);
}
