using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

public class CoarseClockTests
{
    private static readonly DateTimeOffset s_start = new(2026, 11, 25, 13, 0, 0, TimeSpan.Zero);

    [Theory]
    [InlineData(0)]
    [InlineData(999)]
    public void ReadsTheProvidersTimeAtStartUntilASecondHasPassed(int elapsedMilliseconds)
    {
        var time = new FakeTimeProvider(s_start);
        using var clock = new CoarseClock(time);

        time.Advance(TimeSpan.FromMilliseconds(elapsedMilliseconds));

        Assert.Equal(s_start, clock.UtcNow);
    }

    [Fact]
    public void FollowsTheProviderEverySecond()
    {
        var time = new FakeTimeProvider(s_start);
        using var clock = new CoarseClock(time);

        time.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal(s_start.AddSeconds(1), clock.UtcNow);

        time.Advance(TimeSpan.FromSeconds(2));
        Assert.Equal(s_start.AddSeconds(3), clock.UtcNow);
    }

    [Fact]
    public void StopsFollowingOnceDisposed()
    {
        var time = new FakeTimeProvider(s_start);
        var clock = new CoarseClock(time);

        clock.Dispose();
        time.Advance(TimeSpan.FromSeconds(5));

        Assert.Equal(s_start, clock.UtcNow);
    }
}
