namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// A token bucket for frames a peer may send only now and then (streams it resets, empty frames, tiny window updates):
/// <c>burst</c> at once, refilled at <c>perSecond</c> on the connection's clock. A peer that spends it faster is
/// flooding, and the connection ends with ENHANCE_YOUR_CALM (RFC 9113 §10.5). See docs/decisions/0020-http2.md.
/// </summary>
internal struct Http2FloodBudget
{
    private readonly int _burst;
    private readonly int _perSecond;
    private double _tokens;
    private long _refilledAt;
    private bool _started;

    public Http2FloodBudget(int burst, int perSecond)
    {
        _burst = burst;
        _perSecond = perSecond;
        _tokens = burst;
    }

    /// <summary>Takes one token: false when none is left, the refill since the last call counted.</summary>
    public bool TrySpend(TimeProvider time)
    {
        long now = time.GetTimestamp();
        if (_started)
        {
            _tokens = Math.Min(_burst, _tokens + (time.GetElapsedTime(_refilledAt, now).TotalSeconds * _perSecond));
        }

        _started = true;
        _refilledAt = now;
        if (_tokens < 1)
        {
            return false;
        }

        _tokens--;
        return true;
    }
}
