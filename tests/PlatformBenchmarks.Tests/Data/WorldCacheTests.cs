using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class WorldCacheTests
{
    [Fact]
    public async Task WarmUpCachesEveryRowOfTheTable()
    {
        using var cache = new WorldCache(TestDatabase.Shared(Mode.Multiplexing), new FakeTimeProvider());

        DatabaseStatus status = await cache.TryWarmUpAsync();

        Assert.True(status.IsAvailable, status.Description);
        Assert.Equal(World.MaxId, cache.Count);
    }

    [Fact]
    public async Task AWarmCacheAnswersSynchronouslyWithTheTablesRows()
    {
        using var cache = new WorldCache(TestDatabase.Shared(Mode.Multiplexing), new FakeTimeProvider());
        await cache.TryWarmUpAsync();
        int[] table = await TestDatabase.ReadWorldTableAsync();

        ValueTask<DataResult<World[]>> lookup = cache.GetCachedWorldsAsync(500);

        Assert.True(lookup.IsCompletedSuccessfully, "a warm cache must not wait for the database");
        World[] worlds = (await lookup).Value;
        Assert.Equal(500, worlds.Length);
        Assert.All(worlds, world => Assert.Equal(table[world.Id], world.RandomNumber));
        Assert.True(worlds.Select(world => world.Id).Distinct().Count() > 400, "the rows should be random");
    }

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task MissesReadThroughToTheDatabaseAndAreCached(Mode mode)
    {
        using var cache = new WorldCache(TestDatabase.Shared(mode), new FakeTimeProvider());
        int[] table = await TestDatabase.ReadWorldTableAsync();

        World[] worlds = (await cache.GetCachedWorldsAsync(100)).Value;

        Assert.All(worlds, world => Assert.Equal(table[world.Id], world.RandomNumber));
        Assert.Equal(worlds.Select(world => world.Id).Distinct().Count(), cache.Count);
    }
}
