using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Data;

/// <summary>
/// Fails database calls immediately for a short period after PostgreSQL proved unreachable, so that requests arriving
/// during an outage get their 503 at once instead of each paying for a connection attempt, and a returning database is
/// not stampeded. After the period one call is let through as a probe; its success closes the breaker, its failure
/// re-opens it. A probe that never finishes cannot wedge the breaker: the next period admits another probe.
/// </summary>
/// <remarks>
/// The breaker's two transitions are what the log says of an outage (<see cref="OutageLog"/>): opening logs a warning,
/// the probe that closes it logs the recovery. Calls that fail fast log nothing.
/// </remarks>
internal sealed class CircuitBreaker
{
    private readonly TimeProvider _time;
    private readonly long _openTicks;
    private readonly OutageLog _log;
    // Taken only by the transitions, never by a call that finds the breaker closed or fails fast.
    private readonly Lock _transitions = new();

    // Timestamp (of the TimeProvider) until which calls fail fast; 0 while closed. The hot path is one volatile read of it.
    private long _openUntil;
    // What calls get while the breaker is open: made once per trip, so failing fast allocates nothing.
    private DataFailure _openFailure = new(DataOutcome.Unavailable, "database unavailable; failing fast until it answers again");

    public CircuitBreaker(TimeSpan openPeriod, TimeProvider time, ILogger logger)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(openPeriod, TimeSpan.Zero);
        ArgumentNullException.ThrowIfNull(time);
        _time = time;
        _openTicks = Math.Max(1, (long)(openPeriod.TotalSeconds * time.TimestampFrequency));
        _log = new OutageLog(time, logger);
    }

    /// <summary>Whether calls fail fast now: the loops' batches then leave reads to the pool, whose calls probe the database.</summary>
    internal bool IsOpen => Volatile.Read(ref _openUntil) != 0;

    /// <summary>What a call that found the breaker <see cref="BreakerAdmission.Open"/> hands back, with the last reason.</summary>
    public DataFailure OpenFailure => Volatile.Read(ref _openFailure);

    /// <summary>
    /// Admits a call, or answers <see cref="BreakerAdmission.Open"/>: the caller then hands back <see cref="OpenFailure"/>
    /// without trying the database. A value rather than an exception, since during an outage every call gets it. A
    /// <see cref="BreakerAdmission.Probe"/> must report its outcome with <see cref="Succeeded"/> or <see cref="Tripped"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public BreakerAdmission Enter()
    {
        long until = Volatile.Read(ref _openUntil);
        return until == 0 ? BreakerAdmission.Closed : EnterOpen(until);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private BreakerAdmission EnterOpen(long until)
    {
        long now = _time.GetTimestamp();
        // Only the caller that moves the deadline forward becomes the probe; everyone else keeps failing fast.
        if (now < until || Interlocked.CompareExchange(ref _openUntil, now + _openTicks, until) != until)
        {
            return BreakerAdmission.Open;
        }

        return BreakerAdmission.Probe;
    }

    /// <summary>The database answered (successfully or with a query error): a probe closes the breaker.</summary>
    public void Succeeded(bool probe)
    {
        if (probe)
        {
            // Under the transitions' lock, so that a failure tripping the breaker at the same moment cannot log its outage
            // before this recovery. Enter never turns a closed breaker open or back, so it needs no lock.
            lock (_transitions)
            {
                if (Interlocked.Exchange(ref _openUntil, 0) != 0)
                {
                    _log.Closed();
                }
            }
        }
    }

    /// <summary>
    /// The database is unreachable (<paramref name="reason"/>, short; <paramref name="cause"/>, what Npgsql threw): open
    /// (or keep open) the breaker. Returns true when it was closed before.
    /// </summary>
    public bool Tripped(string reason, Exception cause)
    {
        Volatile.Write(ref _openFailure, new DataFailure(DataOutcome.Unavailable, $"database unavailable ({reason}); failing fast until it answers again"));
        lock (_transitions)
        {
            bool wasClosed = Interlocked.Exchange(ref _openUntil, _time.GetTimestamp() + _openTicks) == 0;
            _log.Failed(wasClosed, reason, cause);
            return wasClosed;
        }
    }
}
