using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>
/// Gives the memory OpenSSL freed after a burst of handshakes back to the system: glibc's malloc keeps freed chunks in
/// its arenas, so a flood of abandoned handshakes would otherwise leave the resident set hundreds of MiB higher than
/// before it (docs/decisions/0016-tls-layer.md, "Giving it back after a burst"). Once the handshakes in progress have risen to
/// <see cref="Threshold"/> and fallen back to <see cref="LowMark"/>, one <c>malloc_trim(0)</c> runs from a timer of the
/// server's clock (the thread pool, never a loop), <see cref="Settle"/> later so the connections that ended with the
/// burst have freed theirs, and no sooner than <see cref="Interval"/> after the previous trim.
/// </summary>
internal sealed partial class TlsMemoryTrim
{
    /// <summary>Handshakes in progress at once that make a burst: a few hundred clients connecting together.</summary>
    internal const int Threshold = 256;

    /// <summary>Handshakes in progress at or below which a burst has ended.</summary>
    internal const int LowMark = 16;

    /// <summary>How long after a burst's end the trim waits: the last connections free their memory after their count.</summary>
    internal static readonly TimeSpan Settle = TimeSpan.FromSeconds(1);

    /// <summary>The least time between two trims: a trim walks every arena under its lock.</summary>
    internal static readonly TimeSpan Interval = TimeSpan.FromSeconds(10);

    private readonly TimeProvider _time;
    private readonly Func<int> _inProgress;
    private readonly Func<bool> _trim;
    private readonly Lock _lock = new();
    private ITimer? _timer;
    private long _lastTrim;
    private bool _trimmed;
    private bool _armed;
    private int _threshold = Threshold;
    private int _burst;

    /// <param name="inProgress">The handshakes in progress now.</param>
    /// <param name="trim">Returns memory to the system; false when it cannot, which ends trimming for good.</param>
    /// <param name="maxInProgress">The cap on handshakes in progress: a burst is one that reaches it, if it is below <see cref="Threshold"/>.</param>
    internal TlsMemoryTrim(TimeProvider time, Func<int> inProgress, Func<bool> trim, int maxInProgress = int.MaxValue)
    {
        _threshold = Math.Min(Threshold, maxInProgress);
        _time = time;
        _inProgress = inProgress;
        _trim = trim;
    }

    /// <summary>A handshake began; <paramref name="inProgress"/> counts it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Started(int inProgress)
    {
        if (inProgress >= Volatile.Read(ref _threshold) && Volatile.Read(ref _burst) == 0)
        {
            Volatile.Write(ref _burst, 1);
        }
    }

    /// <summary>A handshake ended; <paramref name="inProgress"/> no longer counts it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Ended(int inProgress)
    {
        if (inProgress <= LowMark && Volatile.Read(ref _burst) != 0)
        {
            Request();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Request()
    {
        lock (_lock)
        {
            if (_armed || _burst == 0)
            {
                return;
            }

            TimeSpan due = Settle;
            if (_trimmed)
            {
                TimeSpan left = Interval - _time.GetElapsedTime(_lastTrim);
                due = left > due ? left : due;
            }

            _armed = true;
            _timer ??= _time.CreateTimer(static state => ((TlsMemoryTrim)state!).OnTimer(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            _timer.Change(due, Timeout.InfiniteTimeSpan);
        }
    }

    private void OnTimer()
    {
        lock (_lock)
        {
            _armed = false;
            // A new burst began meanwhile: its end asks again.
            if (_inProgress() > LowMark)
            {
                return;
            }

            _burst = 0;
            _trimmed = true;
            _lastTrim = _time.GetTimestamp();
        }

        if (!_trim())
        {
            Volatile.Write(ref _threshold, int.MaxValue);
        }
    }

    /// <summary>glibc's <c>malloc_trim(0)</c>; false, with a Debug line, on a libc without it (musl) or off Linux.</summary>
    internal static bool MallocTrim(ILogger logger)
    {
        if (!OperatingSystem.IsLinux())
        {
            LogUnavailable(logger, "not Linux");
            return false;
        }

        try
        {
            _ = malloc_trim(0);
            return true;
        }
        catch (Exception exception) when (exception is EntryPointNotFoundException or DllNotFoundException)
        {
            LogUnavailable(logger, exception.Message);
            return false;
        }
    }

    [LibraryImport("libc", EntryPoint = "malloc_trim")]
    private static partial int malloc_trim(nuint pad);

    [LoggerMessage(EventId = 25, Level = LogLevel.Debug, Message = "The memory of ended TLS handshakes is not returned to the system after a burst: malloc_trim is unavailable ({Reason}).")]
    private static partial void LogUnavailable(ILogger logger, string reason);
}
