using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Http;

/// <summary>Request limits and timeouts, bound from the <c>Http</c> configuration section and checked at start-up by <see cref="HttpLimitsValidator"/>.</summary>
public sealed class HttpLimits
{
    /// <summary>Longest request line, without its CRLF (414 beyond).</summary>
    public int MaxRequestLineSize { get; set; } = 8 * 1024;

    /// <summary>Largest header section, every field line with its CRLF (431 beyond).</summary>
    public int MaxRequestHeadersSize { get; set; } = 32 * 1024;

    /// <summary>Most header fields in one request (431 beyond).</summary>
    public int MaxRequestHeaderCount { get; set; } = 100;

    /// <summary>Largest request body, read by its handler or discarded (413 beyond).</summary>
    public long MaxRequestBodySize { get; set; } = 1024 * 1024;

    /// <summary>
    /// How long a request head may take to arrive, from its first byte to its empty line (408 after). Each request of a
    /// connection has its own; an idle keep-alive connection is never timed out: TFB forbids a maximum keep-alive time.
    /// </summary>
    public TimeSpan RequestHeadersTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The slowest a request body may arrive, in bytes per second, averaged over the time spent waiting for it (by its
    /// handler, or by the engine discarding what the handler left): past <see cref="MinRequestBodyDataRateGracePeriod"/>,
    /// a body below it gets 408. Time the handler spends not reading does not count against the client. 0: no check.
    /// </summary>
    // 240 bytes/s, as Kestrel: low enough for any client that is sending at all, high enough to end a stalled one.
    public long MinRequestBodyDataRate { get; set; } = 240;

    /// <summary>How long a body is waited for before <see cref="MinRequestBodyDataRate"/> applies.</summary>
    public TimeSpan MinRequestBodyDataRateGracePeriod { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// When the server closes a connection the client may still be sending on (after a rejection, or with requests
    /// pipelined behind <c>Connection: close</c>), it keeps reading and discarding until the client has been silent this
    /// long, or has closed. Closing with bytes unread would make the kernel send a reset, which can destroy the response
    /// before the client reads it.
    /// </summary>
    // Two seconds, as Apache waits: long enough for a client that is still uploading, short enough that a client which
    // waits for the server's close after an error is not kept long.
    public TimeSpan LingerTimeout { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>The longest such a closing connection is kept, however long the client keeps sending.</summary>
    public TimeSpan MaxLingerTime { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// The largest WebSocket message a client may send, its frames' payloads together: a frame that would pass it closes
    /// the connection with 1009 (RFC 6455 §7.4.1) as soon as its header arrives, before any of it is buffered.
    /// </summary>
    public long MaxWebSocketMessageSize { get; set; } = 1024 * 1024;

    /// <summary>
    /// How long a WebSocket may go without a byte from the client before the server closes it (1001). Ping frames count
    /// as bytes: a client that wants to stay idle longer pings.
    /// </summary>
    public TimeSpan WebSocketIdleTimeout { get; set; } = TimeSpan.FromMinutes(2);

    /// <summary>
    /// How long an HTTP/2 connection may have no stream open before the server closes it with GOAWAY NO_ERROR (RFC 9113
    /// §6.8). HTTP/1.1's keep-alive is never timed (see <see cref="RequestHeadersTimeout"/>); an HTTP/2 client opens its
    /// streams on few connections, and PING frames alone do not keep one open.
    /// </summary>
    // Kestrel's keep-alive default.
    public TimeSpan Http2KeepAliveTimeout { get; set; } = TimeSpan.FromSeconds(130);

    internal int MaxHeadSize => MaxRequestLineSize + 2 + MaxRequestHeadersSize + 2;
}

/// <summary>Refuses limits the engine cannot work with, naming the key, so the server stops at start-up rather than failing connections.</summary>
public sealed class HttpLimitsValidator : IValidateOptions<HttpLimits>
{
    // The head (request line, fields, their CRLFs) is copied into one per-connection buffer when it is split: keep its
    // size well inside an int.
    private const int MaxSize = 64 * 1024 * 1024;

    public ValidateOptionsResult Validate(string? name, HttpLimits options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        RequireInRange(failures, nameof(HttpLimits.MaxRequestLineSize), options.MaxRequestLineSize, 16, MaxSize);
        RequireInRange(failures, nameof(HttpLimits.MaxRequestHeadersSize), options.MaxRequestHeadersSize, 16, MaxSize);
        RequireInRange(failures, nameof(HttpLimits.MaxRequestHeaderCount), options.MaxRequestHeaderCount, 1, int.MaxValue);
        RequireInRange(failures, nameof(HttpLimits.MaxRequestBodySize), options.MaxRequestBodySize, 0, long.MaxValue);
        RequireDuration(failures, nameof(HttpLimits.RequestHeadersTimeout), options.RequestHeadersTimeout, allowZero: false);
        RequireInRange(failures, nameof(HttpLimits.MinRequestBodyDataRate), options.MinRequestBodyDataRate, 0, int.MaxValue);
        RequireDuration(failures, nameof(HttpLimits.MinRequestBodyDataRateGracePeriod), options.MinRequestBodyDataRateGracePeriod, allowZero: false);
        RequireDuration(failures, nameof(HttpLimits.LingerTimeout), options.LingerTimeout, allowZero: true);
        RequireDuration(failures, nameof(HttpLimits.MaxLingerTime), options.MaxLingerTime, allowZero: true);

        // A message is gathered in one array when its handler takes it whole.
        RequireInRange(failures, nameof(HttpLimits.MaxWebSocketMessageSize), options.MaxWebSocketMessageSize, 0, Array.MaxLength);
        RequireDuration(failures, nameof(HttpLimits.WebSocketIdleTimeout), options.WebSocketIdleTimeout, allowZero: false);
        RequireDuration(failures, nameof(HttpLimits.Http2KeepAliveTimeout), options.Http2KeepAliveTimeout, allowZero: false);
        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void RequireInRange(List<string> failures, string key, long value, long min, long max)
    {
        if (value < min || value > max)
        {
            failures.Add($"Configuration 'Http:{key}' must be in {min}..{max}, not {value}.");
        }
    }

    private static void RequireDuration(List<string> failures, string key, TimeSpan value, bool allowZero)
    {
        // A timer takes at most uint.MaxValue - 1 milliseconds (about 49 days).
        if (value < TimeSpan.Zero || (value == TimeSpan.Zero && !allowZero) || value.TotalMilliseconds > uint.MaxValue - 1)
        {
            failures.Add($"Configuration 'Http:{key}' must be a duration {(allowZero ? "of 0 or more" : "above 0")} and under 49 days, not {value}.");
        }
    }
}
