using System.Globalization;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Hosting;

/// <summary>One key the server reads: its default as <c>--help</c> shows it, what it means, and for an enum its values.</summary>
internal sealed record Setting(string Key, string Default, string Meaning)
{
    /// <summary>The only values the key takes (ignoring case), or null when any value of its type will do.</summary>
    public IReadOnlyList<string>? Choices { get; init; }
}

/// <summary>
/// Every key the server reads, with the defaults of its options types: the list <c>--help</c> prints, against which
/// <see cref="ServerSettings.CheckKeys"/> refuses a key that is none of them and names the nearest.
/// </summary>
internal static class SettingsCatalog
{
    /// <summary>The sections bound to the server's options types: every key under them must be one of <see cref="All"/>.</summary>
    public static IReadOnlyList<string> Sections { get; } = ["Http", "Transport", "Sockets", "Tls", "Database", "HttpArena"];

    /// <summary>
    /// Keys that were read under another name once, with the key that holds the setting now: refused with a message that
    /// names it, so a script or a settings file written for the old name stops at start instead of running on a default.
    /// Kestrel's socket settings were under <c>Transport</c>, beside the keys of this project's loops; one request timeout
    /// for head and body is now a head timeout and a minimum body rate.
    /// </summary>
    public static IReadOnlyDictionary<string, string> Moved { get; } = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase)
    {
        ["Transport:WaitForDataBeforeAllocatingBuffer"] = "Sockets:WaitForDataBeforeAllocatingBuffer",
        ["Transport:UnsafePreferInlineScheduling"] = "Sockets:UnsafePreferInlineScheduling",
        ["Transport:IOQueueCount"] = "Sockets:IOQueueCount",
        ["Http:RequestTimeout"] = "Http:RequestHeadersTimeout",
    };

    /// <summary>
    /// Kestrel's own section, which the host reads and this server does not: no key under it is accepted, because its
    /// endpoints would listen where <c>urls</c> and its checks never see, and its limits are not the engine's.
    /// </summary>
    public const string KestrelSection = "Kestrel";

    /// <summary>The host's logging section, whose keys name any category or provider: anything under it is accepted.</summary>
    public const string LoggingSection = "Logging";

    public static IReadOnlyList<Setting> All { get; } = Create();

    public static Setting? Find(string key) => All.FirstOrDefault(setting => string.Equals(setting.Key, key, StringComparison.OrdinalIgnoreCase));

    private static Setting[] Create()
    {
        var http = new HttpLimits();
        var transport = new LinuxTransportOptions();
        var sockets = new KestrelSocketSettings();
        var tls = new TlsOptions();
        var database = new DatabaseOptions();
        var arena = new HttpArenaOptions();
        return
        [
            new("urls", Program.DefaultUrls, "listen addresses, ';'-separated, http://, https:// (TLS) or h2c:// (HTTP/2 only, prior knowledge); the host is *, +, 0.0.0.0 or [::] (every interface), localhost, or an IP address"),
            new("Transport:Kind", transport.Kind.ToString(), "the transport that carries the connections") { Choices = Enum.GetNames<TransportKind>() },
            new("Transport:ThreadCount", Text(transport.ThreadCount), "IoUring, Epoll: loop threads (0: one per processor)"),
            new("Transport:MaxReadBufferSize", Text(transport.MaxReadBufferSize), "IoUring, Epoll: received bytes not yet consumed at which reading pauses"),
            new("Transport:MaxWriteBufferSize", Text(transport.MaxWriteBufferSize), "IoUring, Epoll: flushed bytes not yet sent at which a flush waits"),
            new("Transport:DrainTimeout", Text(transport.DrainTimeout), "IoUring, Epoll: how long a closing connection may take to send the rest"),
            new("Sockets:WaitForDataBeforeAllocatingBuffer", Text(sockets.WaitForDataBeforeAllocatingBuffer), "Kestrel's sockets: take a receive buffer only once data has arrived"),
            new("Sockets:UnsafePreferInlineScheduling", Text(sockets.UnsafePreferInlineScheduling), "Kestrel's sockets: run continuations inline on the I/O threads"),
            new("Sockets:IOQueueCount", Text(sockets.IOQueueCount), "Kestrel's sockets: I/O queues (0: Kestrel's default)"),
            new("Http:MaxRequestLineSize", Text(http.MaxRequestLineSize), "longest request line (414 beyond)"),
            new("Http:MaxRequestHeadersSize", Text(http.MaxRequestHeadersSize), "largest header section (431 beyond)"),
            new("Http:MaxRequestHeaderCount", Text(http.MaxRequestHeaderCount), "most header fields (431 beyond)"),
            new("Http:MaxRequestBodySize", Text(http.MaxRequestBodySize), "largest request body, read by its handler or discarded (413 beyond)"),
            new("Http:RequestHeadersTimeout", Text(http.RequestHeadersTimeout), "how long a request head may take to arrive, from its first byte (408 after)"),
            new("Http:MinRequestBodyDataRate", Text(http.MinRequestBodyDataRate), "slowest a request body may arrive, bytes/s over the time spent waiting for it (408 below; 0: no check)"),
            new("Http:MinRequestBodyDataRateGracePeriod", Text(http.MinRequestBodyDataRateGracePeriod), "how long a body is waited for before its minimum rate applies"),
            new("Http:LingerTimeout", Text(http.LingerTimeout), "how long a closing connection reads and drops input after the client went silent"),
            new("Http:MaxLingerTime", Text(http.MaxLingerTime), "the longest a closing connection is kept reading; a WebSocket's close waits as long for the client's"),
            new("Http:MaxWebSocketMessageSize", Text(http.MaxWebSocketMessageSize), "largest WebSocket message a client may send, all its frames (close 1009 beyond)"),
            new("Http:WebSocketIdleTimeout", Text(http.WebSocketIdleTimeout), "how long a WebSocket may go without a byte from the client (close 1001 after)"),
            new("Http:Http2KeepAliveTimeout", Text(http.Http2KeepAliveTimeout), "how long an HTTP/2 connection may have no stream open (GOAWAY NO_ERROR after)"),
            new("TLS_CERT", "(none)", "https:// listeners: the certificate as a PEM file, leaf first (HttpArena's name; Tls:CertificatePath wins)"),
            new("TLS_KEY", "(none)", "https:// listeners: the certificate's private key as a PEM file (HttpArena's name; Tls:KeyPath wins)"),
            new("Tls:CertificatePath", "(none)", "https:// listeners: the certificate as a PEM file, leaf first, then its chain"),
            new("Tls:KeyPath", "(none)", "https:// listeners: the certificate's private key as a PEM file"),
            new("Tls:HandshakeTimeout", Text(tls.HandshakeTimeout), "how long a client has to complete its TLS handshake, from the accept"),
            new("Tls:MaxHandshakes", Text(tls.MaxHandshakes), "most TLS handshakes in progress at once; a connection beyond is closed at once"),
            new("Tls:CipherSuites", tls.CipherSuites.ToString(), "TLS 1.2's suites: ECDHE with AEAD only, sessions not resumed (Aead), or OpenSSL's configured list, sessions resumed (OpenSsl)") { Choices = Enum.GetNames<TlsSuites>() },
            new("Tls:Engine", tls.Engine.ToString(), "what encrypts the records: .NET's SslStream, or OpenSSL 3 (libssl.so.3) directly on the loop thread") { Choices = Enum.GetNames<TlsEngine>() },
            new("Tls:RecordLayer", tls.RecordLayer.ToString(), "who protects TLS 1.3's records after the OpenSsl engine's handshake: the loop, with its own AES-GCM and OpenSSL's EVP calls for ChaCha20-Poly1305 (Loop), the loop with OpenSSL's EVP calls for every suite (LoopEvp), or OpenSSL's own record layer (OpenSsl)") { Choices = Enum.GetNames<TlsRecordLayer>() },
            new("ConnectionString", database.ConnectionString, "the Npgsql connection string"),
            new("DATABASE_URL", "(none)", "the database as a URL, postgres://user:password@host:port/database (HttpArena's form), instead of ConnectionString"),
            new("DATABASE_MAX_CONN", "(none)", "the most connections the database takes: the pool's size unless Database:MaxPoolSize or the connection string sets one"),
            new("Database:Multiplexing", Text(true), "Npgsql multiplexing (false: plain pooling)"),
            new("Database:MaxPoolSize", $"{Text(DatabaseOptions.DefaultMultiplexingPoolSize)} ({Text(DatabaseOptions.DefaultPooledPoolSize)} without multiplexing)", "physical connections"),
            new("Database:LoopConnections", Text(database.LoopConnections), "IoUring, Epoll: connections each loop owns to send its reads as one batch per turn (0: all through the pool)"),
            new("Database:FailFastMilliseconds", Text(database.FailFastMilliseconds), "how long database calls fail at once (503) after it proved unreachable"),
            new("HttpArena:DatasetPath", arena.DatasetPath, "the dataset /json/{count} serves, read at start-up (503 while it cannot be read)"),
            new("HttpArena:MaxUploadSize", Text(arena.MaxUploadSize), "largest body POST /upload takes, in place of Http:MaxRequestBodySize (413 beyond)"),
            new("HttpArena:StaticPath", arena.StaticPath, "the directory GET /static/{file} serves (an absolute path; missing: every file is a 404)"),
            new("HttpArena:Gzip", arena.Gzip.ToString(), "what writes gzip bodies: libdeflate when it loads (Auto), libdeflate or no start (LibDeflate), System.IO.Compression (Runtime)") { Choices = Enum.GetNames<GzipLibrary>() },
            new("Logging:LogLevel:Default", "Warning", "console log level (any key under Logging is the host's)"),
        ];
    }

    private static string Text(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static string Text(TimeSpan value) => value.ToString("c", CultureInfo.InvariantCulture);

    private static string Text(bool value) => value ? "true" : "false";
}
