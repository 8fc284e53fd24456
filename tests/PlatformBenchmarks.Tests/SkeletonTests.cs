namespace PlatformBenchmarks.Tests;

public class SkeletonTests
{
    [Fact]
    public void BuildsAndRuns() => Assert.Equal(4, 2 + 2);
}
