using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

public class CircuitBreakerTests
{
    private static readonly TimeSpan s_period = TimeSpan.FromMilliseconds(200);

    [Fact]
    public void ClosedBreakerAdmitsEveryCallWithoutProbing()
    {
        var breaker = new CircuitBreaker(s_period);

        Assert.False(breaker.Enter());
        Assert.False(breaker.Enter());
        Assert.False(breaker.IsOpen);
    }

    [Fact]
    public async Task TrippedBreakerFailsFastThenAdmitsExactlyOneProbe()
    {
        var breaker = new CircuitBreaker(s_period);

        Assert.True(breaker.Tripped("refused"));
        var fastFailure = Assert.Throws<DatabaseUnavailableException>(() => breaker.Enter());
        Assert.Contains("refused", fastFailure.Message, StringComparison.Ordinal);

        await Task.Delay(s_period + TimeSpan.FromMilliseconds(50));
        Assert.True(breaker.Enter());
        Assert.Throws<DatabaseUnavailableException>(() => breaker.Enter());

        breaker.Succeeded(probe: true);
        Assert.False(breaker.IsOpen);
        Assert.False(breaker.Enter());
    }

    [Fact]
    public async Task FailedProbeReopensTheBreakerForAnotherPeriod()
    {
        var breaker = new CircuitBreaker(s_period);
        breaker.Tripped("refused");
        await Task.Delay(s_period + TimeSpan.FromMilliseconds(50));
        Assert.True(breaker.Enter());

        Assert.False(breaker.Tripped("still refused"));

        Assert.Throws<DatabaseUnavailableException>(() => breaker.Enter());
        await Task.Delay(s_period + TimeSpan.FromMilliseconds(50));
        Assert.True(breaker.Enter());
    }

    [Fact]
    public async Task AProbeThatNeverReportsDoesNotKeepTheBreakerOpenForever()
    {
        var breaker = new CircuitBreaker(s_period);
        breaker.Tripped("refused");
        await Task.Delay(s_period + TimeSpan.FromMilliseconds(50));
        Assert.True(breaker.Enter());

        await Task.Delay(s_period + TimeSpan.FromMilliseconds(50));

        Assert.True(breaker.Enter());
    }

    [Fact]
    public void SuccessOfACallThatWasNotTheProbeLeavesTheBreakerOpen()
    {
        var breaker = new CircuitBreaker(s_period);
        breaker.Tripped("refused");

        breaker.Succeeded(probe: false);

        Assert.True(breaker.IsOpen);
    }
}
