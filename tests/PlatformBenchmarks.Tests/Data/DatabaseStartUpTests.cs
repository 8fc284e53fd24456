using System.Diagnostics;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>The server must start, and serve its other routes, whatever state the database is in.</summary>
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseStartUpTests
{
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task NothingListeningGivesAFastNegativeProbeAndFastFailures(bool multiplexing)
    {
        // Port 1 on loopback: nothing listens, the connection is refused at once. The connect timeout is set far above
        // the bound below, so passing shows that no call waited for it (a refusal ends the attempt, then the breaker
        // answers), with a margin no busy test machine can eat up.
        var time = new FakeTimeProvider();
        await using Database database = TestDatabase.Refused(multiplexing, time, extraKeywords: ";Timeout=60");
        using var cache = new WorldCache(database, time);
        var stopwatch = Stopwatch.StartNew();

        DatabaseStatus status = await database.TryWarmUpAsync();
        DatabaseStatus cacheStatus = await cache.TryWarmUpAsync();
        DataResult<World[]> failure = await database.LoadWorldsAsync(20);
        DataResult<World[]> cached = await cache.GetCachedWorldsAsync(1);

        Assert.True(stopwatch.Elapsed < TimeSpan.FromSeconds(20), $"took {stopwatch.Elapsed.TotalMilliseconds} ms");
        Assert.False(status.IsAvailable);
        Assert.False(cacheStatus.IsAvailable);
        Assert.Contains("ConnectionRefused", status.Description, StringComparison.Ordinal);
        Assert.Equal(DataOutcome.Unavailable, failure.Outcome);
        Assert.Equal(DataOutcome.Unavailable, cached.Outcome);
        Assert.Contains("failing fast", failure.Failure?.Reason, StringComparison.Ordinal);
        Assert.DoesNotContain("benchmarkdbpass", status.Description, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task WhileTheBreakerIsOpenACallAnswersAtOnceWithoutAllocating(bool multiplexing)
    {
        await using Database database = TestDatabase.Refused(multiplexing, new FakeTimeProvider());
        Assert.Equal(DataOutcome.Unavailable, (await database.LoadSingleWorldAsync()).Outcome);
        // Once before measuring, for what a first call sets up (its cached lambda, its code).
        Assert.Equal(DataOutcome.Unavailable, (await database.LoadWorldsAsync(20)).Outcome);

        // The clock stands still: every call below finds the breaker open. An exception, a state machine box or a
        // message per call would each show as bytes.
        int unavailable = 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            ValueTask<DataResult<World[]>> pending = database.LoadWorldsAsync(20);
            if (pending.IsCompletedSuccessfully && (await pending).Outcome is DataOutcome.Unavailable)
            {
                unavailable++;
            }
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(1000, unavailable);
        Assert.Equal(0, allocated);
    }

    [Fact]
    public async Task AReachableDatabaseWithoutTheTablesGivesANegativeProbeWithoutThrowing()
    {
        // The cluster's "postgres" database exists but holds no world or fortune table.
        var settings = new NpgsqlConnectionStringBuilder(TestDatabase.ConnectionString) { Database = "postgres" };
        await using var database = new Database(new DatabaseOptions { ConnectionString = settings.ConnectionString }, new FakeTimeProvider(), NullLogger.Instance);

        DatabaseStatus status = await database.TryWarmUpAsync();

        Assert.False(status.IsAvailable);
        Assert.Contains("42P01", status.Description, StringComparison.Ordinal);
    }
}
