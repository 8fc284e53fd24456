using Microsoft.Extensions.Internal;

namespace PlatformBenchmarks.Data;

/// <summary>
/// The clock <see cref="WorldCache"/>'s MemoryCache reads: the time of a <see cref="TimeProvider"/>, taken once a second
/// rather than on every call. MemoryCache asks its clock for the time on every lookup (to test the entry's expiry and
/// stamp its last access), which with the default clock is a read of the system's clock per row, a hundred per
/// /cached-worlds/100 request. The cache's entries never expire, so a second's resolution changes nothing it does;
/// the profile and the measurement are in docs/decisions/0008-measured-code-choices.md.
/// </summary>
internal sealed class CoarseClock : ISystemClock, IDisposable
{
    private readonly TimeProvider _time;
    private readonly ITimer _timer;
    // UTC ticks of the last refresh: one long, so a reader never sees half of an update.
    private long _utcTicks;

    public CoarseClock(TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(time);
        _time = time;
        Refresh();
        _timer = time.CreateTimer(static state => ((CoarseClock)state!).Refresh(), this, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
    }

    public DateTimeOffset UtcNow => new(Volatile.Read(ref _utcTicks), TimeSpan.Zero);

    public void Dispose() => _timer.Dispose();

    private void Refresh() => Volatile.Write(ref _utcTicks, _time.GetUtcNow().UtcTicks);
}
