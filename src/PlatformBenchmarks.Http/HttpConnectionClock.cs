namespace PlatformBenchmarks.Http;

/// <summary>
/// The one timer of a connection, and what it times: a request head from its first byte to its end
/// (<see cref="HttpLimits.RequestHeadersTimeout"/>), or a body's rate while someone waits for it
/// (<see cref="HttpLimits.MinRequestBodyDataRate"/> after its grace period). It runs only while a read waits: an idle
/// keep-alive connection and a handler at work are never on it. See docs/decisions/0014-request-timeouts.md.
/// </summary>
internal sealed class HttpConnectionClock : IDisposable
{
    private enum Waiting : byte
    {
        None,
        Head,
        Body,
    }

    private readonly TimeProvider _time;
    private readonly HttpLimits _limits;
    private CancellationTokenSource? _timer;
    private Waiting _waiting;

    // When the first byte of the head being received arrived; valid while _headStarted.
    private long _headStart;
    private bool _headStarted;

    // The body of the request in hand: the time spent waiting for it so far, and the bytes that arrived meanwhile.
    private TimeSpan _bodyWaited;
    private long _bodyArrived;
    private long _waitStart;

    public HttpConnectionClock(TimeProvider time, HttpLimits limits)
    {
        _time = time;
        _limits = limits;
    }

    /// <summary>A head has been parsed whole: the next one starts its own time.</summary>
    public void HeadCompleted() => _headStarted = false;

    /// <summary>A request with a body is dispatched: its rate is measured from now on.</summary>
    public void BodyStarted()
    {
        _bodyWaited = TimeSpan.Zero;
        _bodyArrived = 0;
    }

    /// <summary>
    /// Arms the timer for a read that waits for the rest of a head; its time started with the head's first byte, which
    /// came in the last read unless an earlier wait for this head started it. The token is cancelled when time is up.
    /// </summary>
    public CancellationToken WaitForHead()
    {
        long now = _time.GetTimestamp();
        if (!_headStarted)
        {
            _headStarted = true;
            _headStart = now;
        }

        _waiting = Waiting.Head;
        return Arm(_limits.RequestHeadersTimeout - _time.GetElapsedTime(_headStart, now));
    }

    /// <summary>
    /// Arms the timer for a read that waits for body bytes: it fires once the grace period has passed and the bytes
    /// that arrived, over the time waited for them, fall below the minimum rate. No timer when the rate is 0.
    /// </summary>
    public CancellationToken WaitForBody()
    {
        _waiting = Waiting.Body;
        _waitStart = _time.GetTimestamp();
        long rate = _limits.MinRequestBodyDataRate;
        if (rate == 0)
        {
            return default;
        }

        // Until more bytes come the count stands still, so the rate falls below the minimum at a time known now:
        // once the wait reaches the grace period or the time the bytes so far pay for, whichever is later.
        double paidFor = Math.Min((double)_bodyArrived / rate, TimeSpan.MaxValue.TotalSeconds / 2);
        var allowed = TimeSpan.FromSeconds(Math.Max(_limits.MinRequestBodyDataRateGracePeriod.TotalSeconds, paidFor));
        return Arm(allowed - _bodyWaited);
    }

    /// <summary>The read armed for returned; <paramref name="arrived"/> counts the bytes it brought.</summary>
    public void EndWait(long arrived)
    {
        if (_waiting == Waiting.Body)
        {
            _bodyWaited += _time.GetElapsedTime(_waitStart);
            _bodyArrived += arrived;
        }

        _waiting = Waiting.None;
        if (_timer is not null && !_timer.TryReset())
        {
            // It fired after the read had its bytes: a source that fired cannot be reset, so the next wait takes another.
            _timer.Dispose();
            _timer = null;
        }
    }

    public void Dispose() => _timer?.Dispose();

    private CancellationToken Arm(TimeSpan left)
    {
        _timer ??= new CancellationTokenSource(Timeout.InfiniteTimeSpan, _time);

        // A timer counts whole milliseconds: round up, so it never fires before the limit. Time already up fires at
        // the next millisecond rather than inside this call, so the read sees bytes that are already here first.
        long milliseconds = Math.Clamp((long)Math.Ceiling(left.TotalMilliseconds), 1, uint.MaxValue - 1);
        _timer.CancelAfter(TimeSpan.FromMilliseconds(milliseconds));
        return _timer.Token;
    }
}
