namespace PlatformBenchmarks.Http;

/// <summary>
/// A parsed request as an application sees it. It borrows the connection's receive buffer, so it is valid only
/// during the synchronous part of <see cref="IHttpApplication.ProcessRequest"/>, and only until the first read of its
/// <see cref="Body"/>: copy out what must outlive it.
/// </summary>
public readonly ref partial struct HttpRequest
{
    private readonly ReadOnlySpan<byte> _head;
    private readonly ref readonly RequestHead _info;
    private readonly RequestBody _body;
    private readonly HttpConnectionContext? _connection;

    internal HttpRequest(ReadOnlySpan<byte> head, ref readonly RequestHead info)
        : this(head, in info, RequestBody.Empty, null)
    {
    }

    internal HttpRequest(ReadOnlySpan<byte> head, ref readonly RequestHead info, RequestBody body, HttpConnectionContext? connection)
    {
        _head = head;
        _info = ref info;
        _body = body;
        _connection = connection;
    }

    /// <summary>The request's body, read as it arrives; it stays usable across awaits until the handler completes.</summary>
    public RequestBody Body => _body;

    /// <summary>What the request's connection gives its handlers: its loop, the clock, the limits. It stays usable across awaits.</summary>
    public HttpConnectionContext Connection => _connection ?? ThrowNoConnection();

    public HttpMethod Method => _info.Method;

    /// <summary>
    /// Whether the request has an Upgrade field (RFC 9110 §7.8): it may ask to switch protocols, as a WebSocket
    /// handshake does (see <see cref="HttpResponse.AcceptWebSocket"/>). Found by a walk of the fields when asked, so
    /// only the handlers that take upgrades pay for it, not every parse.
    /// </summary>
    public bool IsUpgradeRequest
    {
        get
        {
            foreach (Field line in Fields)
            {
                if (System.Text.Ascii.EqualsIgnoreCase(line.Name, "upgrade"u8))
                {
                    return true;
                }
            }

            return false;
        }
    }

    /// <summary>Whether a body follows the head (Content-Length above 0, or chunked).</summary>
    public bool HasBody => _info.BodyKind != BodyKind.None;

    public HttpVersion Version => _info.Version;

    /// <summary>Whether the request lets the connection persist (RFC 9112 §9.3): the codec's business, not a handler's.</summary>
    internal bool KeepAlive => _info.KeepAlive;

    public ReadOnlySpan<byte> MethodToken => _head.Slice(0, _info.MethodLength);

    /// <summary>The path of the target (for an absolute-form target, without scheme and authority), not decoded.</summary>
    public ReadOnlySpan<byte> Path => _head.Slice(_info.PathStart, _info.PathLength);

    /// <summary>The query after '?', without it; empty when there is none.</summary>
    public ReadOnlySpan<byte> Query => _info.QueryStart < 0 ? default : _head.Slice(_info.QueryStart, _info.QueryLength);

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private static HttpConnectionContext ThrowNoConnection() =>
        throw new InvalidOperationException("This request was parsed outside a connection: it has no connection context.");
}
