using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseUpdateTests
{
    [Theory]
    [MemberData(nameof(TestDatabase.ModesAndCounts), MemberType = typeof(TestDatabase))]
    public async Task UpdatesPersistEveryRowWithANewValue(Mode mode, int count)
    {
        Database database = TestDatabase.Shared(mode);
        int[] before = await TestDatabase.ReadWorldTableAsync();

        World[] updated = (await database.UpdateWorldsAsync(count)).Value;

        int[] after = await TestDatabase.ReadWorldTableAsync();
        Assert.Equal(count, updated.Length);
        Assert.Equal(count, updated.Select(world => world.Id).Distinct().Count());
        Assert.All(updated, world =>
        {
            Assert.InRange(world.RandomNumber, 1, World.MaxRandomNumber);
            Assert.NotEqual(before[world.Id], world.RandomNumber);
            Assert.Equal(world.RandomNumber, after[world.Id]);
        });
        // Exactly those rows changed: what the verifier counts after its 501 case (docs/tfb-rules.md §4.4).
        Assert.Equal(count, Enumerable.Range(1, World.MaxId).Count(id => before[id] != after[id]));
    }

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task ConcurrentUpdatesOfOverlappingRowsDoNotDeadlock(Mode mode)
    {
        // 128 requests share the pool; on a loaded machine a request may wait longer than the default 5 s for a
        // connection, which is not what this test is about: give it a long wait of its own.
        DatabaseOptions options = TestDatabase.Options(mode);
        await using var database = new Database(new DatabaseOptions
        {
            ConnectionString = options.ConnectionString + ";Timeout=60",
            Multiplexing = options.Multiplexing,
        }, new FakeTimeProvider(), NullLogger.Instance);

        // Requests of 100 and 500 rows out of 10000 share rows with many others; at those sizes PostgreSQL would lock them in
        // table order (a hash join) were it not for our session options, and some would deadlock. 20 rows is the benchmark's.
        int[] counts = new[] { 100, 20, 500, 20 };
        World[][] results = await Task.WhenAll(Enumerable.Range(0, 128).Select(async i => (await database.UpdateWorldsAsync(counts[i % counts.Length])).Value));

        Assert.All(results, worlds => Assert.True(worlds.Length is 100 or 20 or 500));
        // Not one UPDATE was aborted and retried: the rows were locked in id order.
        Assert.Equal(0, database.DeadlockRetries);
    }

    /// <summary>
    /// Commands are reused across requests and connections, and each row count has its own UPDATE text, all auto-prepared
    /// per connection. The defaults leave room for all of them.
    /// </summary>
    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task ManyDifferentStatementsInterleavedUnderLoadAllSucceed(Mode mode)
    {
        Database database = TestDatabase.Shared(mode);

        for (int round = 0; round < 4; round++)
        {
            await Task.WhenAll(Enumerable.Range(1, 40).Select(async count =>
            {
                Assert.Equal(count, (await database.UpdateWorldsAsync(count)).Value.Length);
                Assert.Equal(count, (await database.LoadWorldsAsync(count)).Value.Length);
                Assert.Equal(12, (await database.LoadFortunesAsync()).Value.Count);
            }));
        }
    }

    /// <summary>
    /// Auto-prepared statements must never evict each other: under multiplexing an eviction can desynchronise Npgsql
    /// 10.0.3 ("Received backend message BindComplete while expecting ParseCompleteMessage"). With the server's settings,
    /// every statement text it sends to TFB's database, used as often as auto-preparation asks, stays prepared on the
    /// connection. The updates are rolled back.
    /// </summary>
    [Fact]
    public async Task TheAutoPrepareRoomHoldsEveryStatementTheServerSends()
    {
        NpgsqlConnectionStringBuilder settings = TestDatabase.Options(Mode.Pooled).CreateConnectionStringBuilder();
        string[] statements = Database.TfbStatementTexts().ToArray();
        await using var connection = new NpgsqlConnection(settings.ConnectionString);
        await connection.OpenAsync();
        await using NpgsqlTransaction transaction = await connection.BeginTransactionAsync();

        // Each statement as often as auto-preparation asks before the next one: Npgsql's list of candidates is shorter
        // than the statements, and a round robin over all of them would evict each before it was used twice.
        foreach (string sql in statements)
        {
            for (int use = 0; use < settings.AutoPrepareMinUsages; use++)
            {
                await using var command = new NpgsqlCommand(sql, connection, transaction);
                // Every parameter is an id or a random number: 1 is a valid value for both.
                for (int i = 0; i < sql.Count(c => c == '$'); i++)
                {
                    command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = 1 });
                }

                await command.ExecuteNonQueryAsync();
            }
        }

        await using var prepared = new NpgsqlCommand("SELECT count(*) FROM pg_prepared_statements", connection, transaction);
        long count = (long)(await prepared.ExecuteScalarAsync())!;
        await transaction.RollbackAsync();

        Assert.True(count >= statements.Length, $"{count} statements stayed prepared of the {statements.Length} the server sends");
    }

    [Fact]
    public void DrawnIdsAreDistinctAscendingAndWithinRange()
    {
        foreach (int count in new[] { 1, 2, 20, 500 })
        {
            World[] worlds = Database.DrawDistinctSortedIds(count);

            Assert.Equal(count, worlds.Length);
            Assert.InRange(worlds[0].Id, 1, World.MaxId);
            Assert.InRange(worlds[^1].Id, 1, World.MaxId);
            for (int i = 1; i < worlds.Length; i++)
            {
                Assert.True(worlds[i - 1].Id < worlds[i].Id, $"ids {worlds[i - 1].Id} and {worlds[i].Id} are not strictly ascending");
            }
        }
    }

    [Fact]
    public void NewRandomNumbersAlwaysDifferFromTheOldOnes()
    {
        World[] worlds = Enumerable.Range(1, 10000).Select(id => new World(id, (id % 3) + 1)).ToArray();

        Database.AssignNewRandomNumbers(worlds);

        Assert.All(worlds, world =>
        {
            Assert.NotEqual((world.Id % 3) + 1, world.RandomNumber);
            Assert.InRange(world.RandomNumber, 1, World.MaxRandomNumber);
        });
    }

    [Theory]
    [InlineData(1)]
    [InlineData(20)]
    [InlineData(500)]
    public async Task UpdateTextIsOneStatementWithoutSelectThatPostgresAccepts(int count)
    {
        string sql = Database.UpdateSql(count);

        Assert.DoesNotContain("select", sql, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(";", sql, StringComparison.Ordinal);
        Assert.Same(sql, Database.UpdateSql(count));
        Assert.Contains($"${2 * count}", sql, StringComparison.Ordinal);
        Assert.DoesNotContain($"${(2 * count) + 1}", sql, StringComparison.Ordinal);

        // Rolled back: only checks that the text is valid and touches exactly the rows named.
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using NpgsqlTransaction transaction = await connection.BeginTransactionAsync();
        await using var command = new NpgsqlCommand(sql, connection, transaction);
        for (int i = 0; i < count; i++)
        {
            command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = i + 1 });
            command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = 1 });
        }

        Assert.Equal(count, await command.ExecuteNonQueryAsync());
        await transaction.RollbackAsync();
    }
}
