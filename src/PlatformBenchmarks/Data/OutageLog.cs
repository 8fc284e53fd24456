using Npgsql;

namespace PlatformBenchmarks.Data;

/// <summary>
/// What the log says of database outages: a warning when one begins, with its reason, and an information line when it
/// ends, with how long it lasted (by the server's <see cref="TimeProvider"/>). Driven by the transitions of
/// <see cref="CircuitBreaker"/>, which calls it under its lock; never by a request that merely fails fast.
/// </summary>
/// <remarks>
/// The breaker's transitions alone do not bound the lines: with <c>Database:FailFastMilliseconds</c> at 0, or a database
/// that flaps (a restart loop, a flaky link), it can open and close every period or on every request. So an outage warning
/// comes at most once every <see cref="WarningInterval"/>. An outage that begins sooner is warned of late, at its first
/// failure past the interval, if it still lasts; one that ends before that is only counted, in the next warning. An
/// outage's end is logged only when its start was, so the log never says "back" without having said "down". That makes
/// at most two lines per interval, however the database behaves.
/// </remarks>
internal sealed partial class OutageLog
{
    /// <summary>The least time between two outage warnings.</summary>
    public static readonly TimeSpan WarningInterval = TimeSpan.FromSeconds(10);

    // Enough for the reason and the first line of Npgsql's message (which names the host); the log wants no stack trace.
    private const int MaxErrorLength = 200;

    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly long _intervalTicks;

    // All timestamps of the TimeProvider. The current (or last) outage: when it began and whether its warning was logged.
    private long _outageStart;
    private bool _outageLogged;
    private long _lastWarning = long.MinValue;
    // Outages that began and ended between two warnings without a line of their own.
    private int _unloggedOutages;

    public OutageLog(TimeProvider time, ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(time);
        ArgumentNullException.ThrowIfNull(logger);
        _time = time;
        _logger = logger;
        _intervalTicks = (long)(WarningInterval.TotalSeconds * time.TimestampFrequency);
    }

    /// <summary>A call found the database unreachable; <paramref name="began"/> when the breaker was closed until then.</summary>
    public void Failed(bool began, string reason, Exception cause)
    {
        long now = _time.GetTimestamp();
        if (began)
        {
            _outageStart = now;
            _outageLogged = false;
        }

        if (_outageLogged || (_lastWarning != long.MinValue && now - _lastWarning < _intervalTicks))
        {
            return;
        }

        string error = Describe(cause);
        if (began && _unloggedOutages == 0)
        {
            LogUnavailable(_logger, reason, error);
        }
        else
        {
            TimeSpan outage = _time.GetElapsedTime(_outageStart, now);
            LogUnavailableAgain(_logger, reason, error, outage.TotalSeconds, _unloggedOutages, WarningInterval.TotalSeconds);
        }

        _outageLogged = true;
        _lastWarning = now;
        _unloggedOutages = 0;
    }

    /// <summary>A probe succeeded: the breaker closed and the outage is over.</summary>
    public void Closed()
    {
        if (_outageLogged)
        {
            TimeSpan outage = _time.GetElapsedTime(_outageStart);
            LogAvailable(_logger, outage.TotalSeconds);
        }
        else
        {
            _unloggedOutages++;
        }
    }

    /// <summary>The exception's kind and the first line of its message, capped: short enough for one log line.</summary>
    internal static string Describe(Exception exception)
    {
        if (exception is PostgresException)
        {
            // Its message is the SQLSTATE and text the reason already gives.
            return nameof(PostgresException);
        }

        string message = exception.Message;
        int end = message.IndexOfAny(['\r', '\n']);
        if (end >= 0)
        {
            message = message[..end];
        }

        string error = $"{exception.GetType().Name}: {message}";
        return error.Length <= MaxErrorLength ? error : string.Concat(error.AsSpan(0, MaxErrorLength - 1), "…");
    }

    [LoggerMessage(EventId = 200, Level = LogLevel.Warning,
        Message = "Database unavailable: {Reason} ({Error}); the database routes answer 503 until it is back")]
    private static partial void LogUnavailable(ILogger logger, string reason, string error);

    [LoggerMessage(EventId = 201, Level = LogLevel.Warning,
        Message = "Database unavailable: {Reason} ({Error}), for {OutageSeconds:0.0} s now; {UnloggedOutages} shorter outages since the "
            + "last warning were not logged (one outage warning every {IntervalSeconds} s at most)")]
    private static partial void LogUnavailableAgain(ILogger logger, string reason, string error, double outageSeconds, int unloggedOutages, double intervalSeconds);

    [LoggerMessage(EventId = 202, Level = LogLevel.Information, Message = "Database available again after {OutageSeconds:0.0} s unavailable")]
    private static partial void LogAvailable(ILogger logger, double outageSeconds);
}
