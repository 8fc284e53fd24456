using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>
/// The harness's query-count check (docs/tfb-rules.md §6), reproduced: reset pg_stat_statements, fire 512 concurrent requests,
/// then sum calls and rows over the statements whose text names the table as a whole word, the rows split by whether the
/// text contains "select" or "update". We expect the exact counts, stricter than the harness's -0%/+5%.
/// </summary>
[Collection(ExclusiveDatabaseTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class StatementCountTests
{
    private const int N = 512;

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task StatementsAndRowsAreExactlyWhatTheHarnessExpects(Mode mode)
    {
        await using Database database = TestDatabase.Create(mode);
        Assert.True((await database.TryWarmUpAsync()).IsAvailable);

        Assert.Equal(new StatementCounts(N, N, 0), await MeasureAsync("world", () => database.LoadSingleWorldAsync().AsTask()));
        Assert.Equal(new StatementCounts(20 * N, 20 * N, 0), await MeasureAsync("world", () => database.LoadWorldsAsync(20).AsTask()));
        // Bulk mode: 20 reads and exactly one UPDATE per request, 21N within the harness's ±0.1% (§6).
        Assert.Equal(new StatementCounts(21 * N, 20 * N, 20 * N), await MeasureAsync("world", () => database.UpdateWorldsAsync(20).AsTask()));
        Assert.Equal(new StatementCounts(N, 12 * N, 0), await MeasureAsync("fortune", () => database.LoadFortunesAsync().AsTask()));
    }

    [Fact]
    public async Task TheLoopsBatchesRunExactlyTheStatementsOfTheirReads()
    {
        using var loop = new TestLoop();
        DatabaseOptions options = TestDatabase.Options(Mode.Multiplexing);
        await using var database = new Database(options, new FakeTimeProvider(), NullLogger.Instance);
        Assert.True((await database.TryWarmUpAsync()).IsAvailable);

        Assert.Equal(new StatementCounts(N, N, 0), await MeasureAsync("world", () => loop.RunAsync(database.LoadSingleWorldAsync)));
        Assert.Equal(new StatementCounts(20 * N, 20 * N, 0), await MeasureAsync("world", () => loop.RunAsync(onLoop => database.LoadWorldsAsync(20, onLoop))));
        Assert.Equal(new StatementCounts(21 * N, 20 * N, 20 * N), await MeasureAsync("world", () => loop.RunAsync(onLoop => database.UpdateWorldsAsync(20, onLoop))));
        Assert.Equal(new StatementCounts(N, 12 * N, 0), await MeasureAsync("fortune", () => loop.RunAsync(database.LoadFortunesAsync)));
    }

    [Fact]
    public async Task AWarmCacheRunsNoStatementsAtAll()
    {
        await using Database database = TestDatabase.Create(Mode.Multiplexing);
        using var cache = new WorldCache(database, new FakeTimeProvider());
        Assert.True((await cache.TryWarmUpAsync()).IsAvailable);

        Assert.Equal(new StatementCounts(0, 0, 0), await MeasureAsync("world", () => cache.GetCachedWorldsAsync(100).AsTask()));
    }

    /// <summary>
    /// Each statement must be followed by its own Sync (docs/tfb-rules.md §2 #7). Outside an explicit transaction every Sync ends
    /// an implicit transaction, so the server's transaction count tells whether the reads of a request were really
    /// separated: one Sync for a whole batch, or a transaction around the reads, would count one per request instead.
    /// </summary>
    [Theory]
    [InlineData(Mode.Multiplexing, false)]
    [InlineData(Mode.Pooled, false)]
    [InlineData(Mode.Multiplexing, true)]
    public async Task EveryStatementIsItsOwnTransactionOnTheServer(Mode mode, bool onALoop)
    {
        const string applicationName = "platformbenchmarks-sync-test";
        DatabaseOptions options = TestDatabase.Options(mode);
        using var loop = new TestLoop();
        var database = new Database(new DatabaseOptions
        {
            ConnectionString = options.ConnectionString + ";Application Name=" + applicationName,
            Multiplexing = options.Multiplexing,
        }, new FakeTimeProvider(), NullLogger.Instance);
        try
        {
            Assert.True((await database.TryWarmUpAsync()).IsAvailable);
            await FlushStatisticsAsync(database, applicationName);
            await EndOtherBackendsAsync();
            database = new Database(new DatabaseOptions
            {
                ConnectionString = options.ConnectionString + ";Application Name=" + applicationName,
                Multiplexing = options.Multiplexing,
            }, new FakeTimeProvider(), NullLogger.Instance);
            long before = await CommittedTransactionsAsync();

            // On a loop, the requests started in one turn go out together in the loop's batches.
            if (onALoop)
            {
                Assert.All(await loop.RunTogetherAsync(Enumerable.Range(0, 64).Select(_ => (Func<DataLoop, ValueTask<DataResult<World[]>>>)(onLoop => database.LoadWorldsAsync(20, onLoop))).ToList()),
                    read => Assert.Null(read.Failure));
                Assert.All(await loop.RunTogetherAsync(Enumerable.Range(0, 64).Select(_ => (Func<DataLoop, ValueTask<DataResult<World[]>>>)(onLoop => database.UpdateWorldsAsync(20, onLoop))).ToList()),
                    update => Assert.Null(update.Failure));
            }
            else
            {
                Assert.All(await Task.WhenAll(Enumerable.Range(0, 64).Select(_ => database.LoadWorldsAsync(20).AsTask())), read => Assert.Null(read.Failure));
                Assert.All(await Task.WhenAll(Enumerable.Range(0, 64).Select(_ => database.UpdateWorldsAsync(20).AsTask())), update => Assert.Null(update.Failure));
            }

            await FlushStatisticsAsync(database, applicationName);

            long transactions = await CommittedTransactionsAsync() - before;
            // 64 x 20 reads + 64 x (20 reads + 1 update). On top: the start-up transaction of each new backend (up to the
            // pool size, 32 without multiplexing) and this test's own queries. A single Sync per request would give ~200.
            int expected = (64 * 20) + (64 * 21);
            Assert.InRange(transactions, expected, expected + 128);
        }
        finally
        {
            await database.DisposeAsync();
        }
    }

    /// <summary>Backends publish their statistics when they exit: close every connection and wait until they are gone.</summary>
    private static async Task FlushStatisticsAsync(Database database, string applicationName)
    {
        await database.DisposeAsync();
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        // The loops' connections too, named after the pool's (Database.LaneApplicationName).
        await using var command = new NpgsqlCommand(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 OR application_name = $1 || ' loops'", connection);
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = applicationName });
        for (int attempt = 0; (long)(await command.ExecuteScalarAsync())! != 0; attempt++)
        {
            Assert.True(attempt < 100, "the test's backends did not exit within 5 s");
            await Task.Delay(50);
        }
    }

    /// <summary>
    /// Idle connections left by earlier tests hold unpublished statistics, which they publish whenever they get round to
    /// it, possibly in the middle of the measurement: end them first (they publish as they exit).
    /// </summary>
    private static async Task EndOtherBackendsAsync()
    {
        await using (NpgsqlConnection connection = await TestDatabase.OpenDirectAsync())
        {
            await using var terminate = new NpgsqlCommand(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                connection);
            await terminate.ExecuteScalarAsync();
            await using var remaining = new NpgsqlCommand(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()", connection);
            for (int attempt = 0; (long)(await remaining.ExecuteScalarAsync())! != 0; attempt++)
            {
                Assert.True(attempt < 100, "other backends did not exit within 5 s");
                await Task.Delay(50);
            }
        }

        // Our own direct connections were among them.
        TestDatabase.ClearDirectConnections();
    }

    private static async Task<long> CommittedTransactionsAsync()
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using var command = new NpgsqlCommand(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()", connection);
        return (long)(await command.ExecuteScalarAsync())!;
    }

    internal static async Task<StatementCounts> MeasureAsync(string table, Func<Task> request)
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
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
        await using NpgsqlDataReader reader = await command.ExecuteReaderAsync();
        Assert.True(await reader.ReadAsync());
        return new StatementCounts(reader.GetInt64(0), reader.GetInt64(1), reader.GetInt64(2));
    }

    internal readonly record struct StatementCounts(long Queries, long RowsRead, long RowsUpdated);
}
