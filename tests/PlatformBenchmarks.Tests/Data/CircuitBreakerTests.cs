using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

public class CircuitBreakerTests
{
    private static readonly TimeSpan s_period = TimeSpan.FromSeconds(1);
    private static readonly IOException s_refused = new("connection refused");

    private readonly FakeTimeProvider _time = new();

    [Fact]
    public void ClosedBreakerAdmitsEveryCallWithoutProbing()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);

        Assert.False(breaker.Enter());
        Assert.False(breaker.Enter());
        Assert.False(breaker.IsOpen);
    }

    [Fact]
    public void TrippedBreakerFailsFastThenAdmitsExactlyOneProbe()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);

        Assert.True(breaker.Tripped("refused", s_refused));
        DatabaseUnavailableException fastFailure = Assert.Throws<DatabaseUnavailableException>(() => breaker.Enter());
        Assert.Contains("refused", fastFailure.Message, StringComparison.Ordinal);

        _time.Advance(s_period - TimeSpan.FromMilliseconds(1));
        Assert.Throws<DatabaseUnavailableException>(() => breaker.Enter());
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.True(breaker.Enter());
        Assert.Throws<DatabaseUnavailableException>(() => breaker.Enter());

        breaker.Succeeded(probe: true);
        Assert.False(breaker.IsOpen);
        Assert.False(breaker.Enter());
    }

    [Fact]
    public void FailedProbeReopensTheBreakerForAnotherPeriod()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);
        _time.Advance(s_period);
        Assert.True(breaker.Enter());

        Assert.False(breaker.Tripped("still refused", s_refused));

        Assert.Throws<DatabaseUnavailableException>(() => breaker.Enter());
        _time.Advance(s_period);
        Assert.True(breaker.Enter());
    }

    [Fact]
    public void AProbeThatNeverReportsDoesNotKeepTheBreakerOpenForever()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);
        _time.Advance(s_period);
        Assert.True(breaker.Enter());

        _time.Advance(s_period);

        Assert.True(breaker.Enter());
    }

    [Fact]
    public void SuccessOfACallThatWasNotTheProbeLeavesTheBreakerOpen()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);

        breaker.Succeeded(probe: false);

        Assert.True(breaker.IsOpen);
    }
}
