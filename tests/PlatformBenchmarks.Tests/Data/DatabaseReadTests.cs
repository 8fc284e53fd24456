using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseReadTests
{
    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task SingleWorldIsAWholeRowOfTheTable(Mode mode)
    {
        Database database = TestDatabase.Shared(mode);
        int[] table = await TestDatabase.ReadWorldTableAsync();

        for (int i = 0; i < 50; i++)
        {
            World world = (await database.LoadSingleWorldAsync()).Value;

            Assert.InRange(world.Id, 1, World.MaxId);
            Assert.Equal(table[world.Id], world.RandomNumber);
        }
    }

    [Theory]
    [MemberData(nameof(TestDatabase.ModesAndCounts), MemberType = typeof(TestDatabase))]
    public async Task MultipleQueriesReturnTheRequestedNumberOfRealRows(Mode mode, int count)
    {
        Database database = TestDatabase.Shared(mode);
        int[] table = await TestDatabase.ReadWorldTableAsync();

        World[] worlds = (await database.LoadWorldsAsync(count)).Value;

        Assert.Equal(count, worlds.Length);
        Assert.All(worlds, world =>
        {
            Assert.InRange(world.Id, 1, World.MaxId);
            Assert.Equal(table[world.Id], world.RandomNumber);
        });
    }

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task RowsAreDrawnFromTheWholeIdRange(Mode mode)
    {
        Database database = TestDatabase.Shared(mode);
        var ids = new List<int>();
        for (int i = 0; i < 4; i++)
        {
            ids.AddRange((await database.LoadWorldsAsync(500)).Value.Select(world => world.Id));
        }

        // 2000 uniform draws: the chance of missing either tenth of the range is about 0.9^2000.
        Assert.Contains(ids, id => id <= 1000);
        Assert.Contains(ids, id => id > 9000);
        Assert.True(ids.Distinct().Count() > 1500, "the ids should be random, not a few repeated ones");
    }

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task ManyConcurrentRequestsAllGetTheirRows(Mode mode)
    {
        // An instance of its own with a long wait for a pooled connection: 512 requests queue for far fewer connections,
        // and on a machine busy with the other test projects the server's 5 s bound (DatabaseOptions) was passed once
        // ("pool exhausted"), which is that bound working, not a request losing its rows.
        await using Database database = TestDatabase.Create(mode, "Timeout=60");

        World[][] results = await Task.WhenAll(Enumerable.Range(0, 512).Select(async _ => (await database.LoadWorldsAsync(20)).Value));

        Assert.All(results, worlds => Assert.Equal(20, worlds.Length));
        Assert.All(results.SelectMany(worlds => worlds), world => Assert.InRange(world.Id, 1, World.MaxId));
    }

    /// <summary>
    /// What lets the server reuse its batches across the pool's connections (Database.ReadWorldsInBatchAsync): a batch
    /// whose statements were auto-prepared on one connection, run on another, prepares them there. Npgsql 10.0.0 still
    /// named the first connection's statements and failed ("26000: prepared statement "_auto0" does not exist").
    /// </summary>
    [Fact]
    public async Task ABatchAutoPreparedOnOneConnectionRunsOnAnother()
    {
        var settings = new NpgsqlConnectionStringBuilder(TestDatabase.ConnectionString) { MaxAutoPrepare = 16, AutoPrepareMinUsages = 2 };
        await using var dataSource = NpgsqlDataSource.Create(settings);
        await using var batch = new NpgsqlBatch { EnableErrorBarriers = true };
        foreach (int id in (int[])[1, 2, 3])
        {
            var command = new NpgsqlBatchCommand("SELECT id, randomnumber FROM world WHERE id = $1");
            command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = id });
            batch.BatchCommands.Add(command);
        }

        await using NpgsqlConnection first = await dataSource.OpenConnectionAsync();
        await using NpgsqlConnection second = await dataSource.OpenConnectionAsync();
        // Three runs prepare the statements on the first connection; the second has never seen them.
        foreach (NpgsqlConnection connection in (NpgsqlConnection[])[first, first, first, second, second, first])
        {
            batch.Connection = connection;
            var ids = new List<int>();
            await using NpgsqlDataReader reader = await batch.ExecuteReaderAsync();
            do
            {
                Assert.True(await reader.ReadAsync());
                ids.Add(reader.GetInt32(0));
            }
            while (await reader.NextResultAsync());

            Assert.Equal([1, 2, 3], ids);
        }
    }

    [Fact]
    public async Task PooledReadsReuseTheirBatchesAcrossConnections()
    {
        // Two connections for eight requests at a time: each batch runs on both, in turn.
        await using Database database = TestDatabase.Create(Mode.Pooled, "Maximum Pool Size=2;Timeout=60");
        int[] table = await TestDatabase.ReadWorldTableAsync();

        for (int round = 0; round < 8; round++)
        {
            World[][] results = await Task.WhenAll(Enumerable.Range(0, 8).Select(async _ => (await database.LoadWorldsAsync(3)).Value));

            Assert.All(results.SelectMany(worlds => worlds), world => Assert.Equal(table[world.Id], world.RandomNumber));
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(501)]
    [InlineData(-1)]
    public async Task CountsOutsideOneTo500AreRejectedBecauseTheCallerMustClampThem(int count)
    {
        Database database = TestDatabase.Shared(Mode.Multiplexing);

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => database.LoadWorldsAsync(count).AsTask());
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => database.UpdateWorldsAsync(count).AsTask());
    }

    [Fact]
    public async Task WarmUpReportsTheDatabaseAvailable()
    {
        DatabaseStatus status = await TestDatabase.Shared(Mode.Multiplexing).TryWarmUpAsync();

        Assert.True(status.IsAvailable, status.Description);
        Assert.Matches(@": 12 fortunes read, probe read of World row [1-9][0-9]* succeeded$", status.Description);
        Assert.DoesNotContain("benchmarkdbpass", status.Description, StringComparison.Ordinal);
    }
}
