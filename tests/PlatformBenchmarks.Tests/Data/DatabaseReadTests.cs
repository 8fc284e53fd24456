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
        Database database = TestDatabase.Shared(mode);

        World[][] results = await Task.WhenAll(Enumerable.Range(0, 512).Select(async _ => (await database.LoadWorldsAsync(20)).Value));

        Assert.All(results, worlds => Assert.Equal(20, worlds.Length));
        Assert.All(results.SelectMany(worlds => worlds), world => Assert.InRange(world.Id, 1, World.MaxId));
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
