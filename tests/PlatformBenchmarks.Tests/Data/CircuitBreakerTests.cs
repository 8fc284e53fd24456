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

        Assert.Equal(BreakerAdmission.Closed, breaker.Enter());
        Assert.Equal(BreakerAdmission.Closed, breaker.Enter());
        Assert.False(breaker.IsOpen);
    }

    [Fact]
    public void TrippedBreakerFailsFastThenAdmitsExactlyOneProbe()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);

        Assert.True(breaker.Tripped("refused", s_refused));
        Assert.Equal(BreakerAdmission.Open, breaker.Enter());
        Assert.Equal(DataOutcome.Unavailable, breaker.OpenFailure.Outcome);
        Assert.Contains("refused", breaker.OpenFailure.Reason, StringComparison.Ordinal);

        _time.Advance(s_period - TimeSpan.FromMilliseconds(1));
        Assert.Equal(BreakerAdmission.Open, breaker.Enter());
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Equal(BreakerAdmission.Probe, breaker.Enter());
        Assert.Equal(BreakerAdmission.Open, breaker.Enter());

        breaker.Succeeded(probe: true);
        Assert.False(breaker.IsOpen);
        Assert.Equal(BreakerAdmission.Closed, breaker.Enter());
    }

    [Fact]
    public void FailedProbeReopensTheBreakerForAnotherPeriod()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);
        _time.Advance(s_period);
        Assert.Equal(BreakerAdmission.Probe, breaker.Enter());

        Assert.False(breaker.Tripped("still refused", s_refused));

        Assert.Equal(BreakerAdmission.Open, breaker.Enter());
        _time.Advance(s_period);
        Assert.Equal(BreakerAdmission.Probe, breaker.Enter());
    }

    [Fact]
    public void AProbeThatNeverReportsDoesNotKeepTheBreakerOpenForever()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);
        _time.Advance(s_period);
        Assert.Equal(BreakerAdmission.Probe, breaker.Enter());

        _time.Advance(s_period);

        Assert.Equal(BreakerAdmission.Probe, breaker.Enter());
    }

    [Fact]
    public void SuccessOfACallThatWasNotTheProbeLeavesTheBreakerOpen()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);

        breaker.Succeeded(probe: false);

        Assert.True(breaker.IsOpen);
    }

    [Fact]
    public void EveryCallThatFailsFastGetsTheSameFailureWithTheLatestReason()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);
        DataFailure first = breaker.OpenFailure;

        Assert.Equal(BreakerAdmission.Open, breaker.Enter());
        Assert.Same(first, breaker.OpenFailure);

        _time.Advance(s_period);
        Assert.Equal(BreakerAdmission.Probe, breaker.Enter());
        breaker.Tripped("timed out", s_refused);

        Assert.Equal(BreakerAdmission.Open, breaker.Enter());
        Assert.Equal("database unavailable (timed out); failing fast until it answers again", breaker.OpenFailure.Reason);
    }

    [Fact]
    public void FailingFastAllocatesNothing()
    {
        var breaker = new CircuitBreaker(s_period, _time, NullLogger.Instance);
        breaker.Tripped("refused", s_refused);
        Assert.Equal(BreakerAdmission.Open, breaker.Enter());

        int open = 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            if (breaker.Enter() is BreakerAdmission.Open && breaker.OpenFailure.Outcome is DataOutcome.Unavailable)
            {
                open++;
            }
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(1000, open);
        Assert.Equal(0, allocated);
    }
}
