using System.Buffers;
using System.Text.Json;
using PlatformBenchmarks.Http.WebSockets;

namespace PlatformBenchmarks.Http;

/// <summary>
/// A response as a handler writes it, whatever the protocol: a status, a Content-Type, a body, and at most a few fields
/// of its own, written whole in one call. The handler never writes protocol bytes: the connection's codec turns the
/// response into an HTTP/1.1 head and body (<see cref="Http1Response"/>), and a later codec into its own framing
/// (docs/decisions/0013-protocol-seam.md). A body whose length is known only once written goes into the reusable buffer
/// of <see cref="StartBody"/> or <see cref="StartJson"/> first.
/// </summary>
public abstract class HttpResponse
{
    private ResponseBodyBuffer? _body;

    /// <summary>The Content-Type value of plain-text responses, the engine's own errors included.</summary>
    public static ReadOnlySpan<byte> TextPlain => "text/plain; charset=utf-8"u8;

    /// <summary>Whether the response to the current request has been written.</summary>
    public bool HasWritten { get; private protected set; }

    // The body is buffered and copied behind its head rather than written straight into the pipe: even a lower bound
    // of the straight path measured level with the copy, and the real one would also fill in Content-Length after the
    // body, so the copy stays and keeps the head exact (docs/decisions/0008-measured-code-choices.md).
    /// <summary>A reusable buffer for a body whose length is known only once it is written; emptied here.</summary>
    public IBufferWriter<byte> StartBody() => (_body ??= ResponseBodyBuffer.Rent()).Start();

    /// <summary>A reusable JSON writer over the body buffer (see <see cref="StartBody"/>).</summary>
    public Utf8JsonWriter StartJson() => (_body ??= ResponseBodyBuffer.Rent()).StartJson();

    /// <summary>What was written through <see cref="StartBody"/> or <see cref="StartJson"/> so far.</summary>
    public ReadOnlySpan<byte> BufferedBody => _body is null ? default : _body.Written;

    /// <summary>Sends what was written through <see cref="StartBody"/> or <see cref="StartJson"/> as the body.</summary>
    public void WriteBuffered(HttpStatus status, ReadOnlySpan<byte> contentType) => WriteResponse(status, contentType, BufferedBody, default, null);

    /// <summary>Sends a complete response with <paramref name="body"/>.</summary>
    public void Write(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body) =>
        WriteResponse(status, contentType, body, default, null);

    /// <summary>Sends a complete response with <paramref name="body"/> and the fields of <paramref name="fields"/>.</summary>
    public void Write(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ResponseFields fields) =>
        WriteResponse(status, contentType, body, default, fields);

    /// <summary>405 with the methods the resource allows (RFC 9110 §15.5.6 requires Allow).</summary>
    public void WriteMethodNotAllowed(ReadOnlySpan<byte> allow) =>
        WriteResponse(HttpStatus.MethodNotAllowed, TextPlain, "Method not allowed.\n"u8, allow, null);

    /// <summary>200 to OPTIONS, with the methods allowed and no content (RFC 9110 §9.3.7).</summary>
    public void WriteOptions(ReadOnlySpan<byte> allow) => WriteResponse(HttpStatus.Ok, TextPlain, default, allow, null);

    /// <summary>A status with a short plain-text reason.</summary>
    public void WriteText(HttpStatus status, ReadOnlySpan<byte> reason) => WriteResponse(status, TextPlain, reason, default, null);

    /// <summary>
    /// Answers a WebSocket opening handshake (RFC 6455 §4.2): when <paramref name="request"/> is a valid one, the answer is
    /// 101 and, once the request's handler completes, the connection speaks WebSocket with <paramref name="handler"/>,
    /// the bytes the client sent behind the handshake included. Otherwise the answer is 426 with the version this server
    /// speaks when the version is missing or another, or 400 (a plain request as well), and the connection stays HTTP.
    /// Returns whether it switches.
    /// </summary>
    public bool AcceptWebSocket(HttpRequest request, IWebSocketHandler handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        Span<byte> accept = stackalloc byte[WebSocketHandshake.AcceptLength];
        switch (WebSocketHandshake.Check(request, accept, out ReadOnlySpan<byte> reason))
        {
            case HandshakeOutcome.Accept when TrySwitchToWebSocket(accept, handler):
                return true;
            case HandshakeOutcome.Accept:
                WriteText(HttpStatus.BadRequest, "This connection cannot switch to WebSocket.\n"u8);
                return false;
            case HandshakeOutcome.UpgradeRequired:
                WriteResponse(HttpStatus.UpgradeRequired, TextPlain, reason, default, WebSocketHandshake.VersionField);
                return false;
            default:
                WriteText(HttpStatus.BadRequest, reason);
                return false;
        }
    }

    /// <summary>
    /// The codec's switch to WebSocket after a valid handshake: sends the 101 with <paramref name="accept"/> as
    /// Sec-WebSocket-Accept and hands the connection to <paramref name="handler"/> once the request is answered. A codec
    /// that cannot switch (a connection multiplexing streams) returns false. Sets <see cref="HasWritten"/> when it switches.
    /// </summary>
    private protected virtual bool TrySwitchToWebSocket(ReadOnlySpan<byte> accept, IWebSocketHandler handler) => false;

    /// <summary>Gives the body buffer back when the connection ends; a later body would take another.</summary>
    internal void ReleaseBodyBuffer()
    {
        if (_body is not null)
        {
            ResponseBodyBuffer.Return(_body);
            _body = null;
        }
    }

    /// <summary>
    /// The codec's encoding of one whole response: <paramref name="allow"/> is the Allow field's value (empty for none),
    /// <paramref name="fields"/> the response's own fields (null for none). Sets <see cref="HasWritten"/>.
    /// </summary>
    private protected abstract void WriteResponse(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> allow, ResponseFields? fields);
}
