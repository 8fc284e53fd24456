namespace PlatformBenchmarks.Http;

/// <summary>
/// What a handler needs from the connection its request came on, whatever the protocol: the loop it runs on, the clock
/// and the limits. One per connection, reached through <see cref="HttpRequest.Connection"/>; the handler never looks for
/// its connection anywhere else.
/// </summary>
public sealed class HttpConnectionContext
{
    private readonly HttpServerContext _server;

    public HttpConnectionContext(HttpServerContext server, ConnectionLoop loop)
    {
        ArgumentNullException.ThrowIfNull(server);
        _server = server;
        Loop = loop;
    }

    /// <summary>The transport loop the connection runs on; <c>default</c> when it has none.</summary>
    public ConnectionLoop Loop { get; }

    /// <summary>The server's clock: every timeout and the Date header read time through it.</summary>
    public TimeProvider Time => _server.Time;

    public HttpLimits Limits => _server.Limits;
}
