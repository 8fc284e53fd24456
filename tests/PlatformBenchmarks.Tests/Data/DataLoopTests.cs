using System.IO.Pipelines;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

public class DataLoopTests
{
    [Fact]
    public void TheDefaultNamesNoLoop()
    {
        DataLoop none = default;

        Assert.Null(none.NextTurn);
        Assert.False(none.IsCurrentThread);
    }

    [Fact]
    public void ALoopIsCurrentOnlyOnItsOwnThread()
    {
        var here = new DataLoop(PipeScheduler.ThreadPool, 3, Environment.CurrentManagedThreadId);
        var elsewhere = new DataLoop(PipeScheduler.ThreadPool, 3, Environment.CurrentManagedThreadId + 1);

        Assert.True(here.IsCurrentThread);
        Assert.False(elsewhere.IsCurrentThread);
        Assert.Equal(3, here.Index);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(DataLoop.MaxLoops)]
    public void AnIndexOutsideTheLanesIsRefused(int index)
        => Assert.Throws<ArgumentOutOfRangeException>(() => new DataLoop(PipeScheduler.ThreadPool, index, Environment.CurrentManagedThreadId));

    [Fact]
    public void ALoopNeedsItsScheduler()
        => Assert.Throws<ArgumentNullException>(() => new DataLoop(null!, 0, Environment.CurrentManagedThreadId));
}
