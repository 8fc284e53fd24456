namespace PlatformBenchmarks.Data;

/// <summary>What <see cref="CircuitBreaker.Enter"/> says to a call.</summary>
internal enum BreakerAdmission
{
    /// <summary>The breaker is closed: run the call.</summary>
    Closed,

    /// <summary>The breaker is open and its period is over: run the call as the probe, and report how it went.</summary>
    Probe,

    /// <summary>The breaker is open: fail fast with <see cref="CircuitBreaker.OpenFailure"/>, without trying the database.</summary>
    Open,
}
