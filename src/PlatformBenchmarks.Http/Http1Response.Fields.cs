using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

internal sealed partial class Http1Response
{
    // TFB requires Server on every response; a short value keeps pipelined plaintext lean on the wire.
    private static ReadOnlySpan<byte> ServerField => "Server: PB\r\n"u8;

    private static ReadOnlySpan<byte> DateName => "Date: "u8;

    private static ReadOnlySpan<byte> ContentTypeName => "Content-Type: "u8;

    private static ReadOnlySpan<byte> ContentLengthName => "Content-Length: "u8;

    private static ReadOnlySpan<byte> AllowName => "Allow: "u8;

    private static ReadOnlySpan<byte> ConnectionClose => "Connection: close\r\n"u8;

    private static ReadOnlySpan<byte> ConnectionKeepAlive => "Connection: keep-alive\r\n"u8;

    private static ReadOnlySpan<byte> Crlf => "\r\n"u8;

    private static ReadOnlySpan<byte> SwitchingToWebSocket => "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "u8;

    private static ReadOnlySpan<byte> ContinueStatusLine => "HTTP/1.1 100 Continue\r\n"u8;

    /// <summary>The status line of each status this server sends. Responses are HTTP/1.1 whatever the request's minor version (RFC 9110 §6.2).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ReadOnlySpan<byte> StatusLine(HttpStatus status) => status switch
    {
        HttpStatus.Ok => "HTTP/1.1 200 OK\r\n"u8,
        HttpStatus.BadRequest => "HTTP/1.1 400 Bad Request\r\n"u8,
        HttpStatus.NotFound => "HTTP/1.1 404 Not Found\r\n"u8,
        HttpStatus.MethodNotAllowed => "HTTP/1.1 405 Method Not Allowed\r\n"u8,
        HttpStatus.RequestTimeout => "HTTP/1.1 408 Request Timeout\r\n"u8,
        HttpStatus.ContentTooLarge => "HTTP/1.1 413 Content Too Large\r\n"u8,
        HttpStatus.UriTooLong => "HTTP/1.1 414 URI Too Long\r\n"u8,
        HttpStatus.UpgradeRequired => "HTTP/1.1 426 Upgrade Required\r\n"u8,
        HttpStatus.RequestHeaderFieldsTooLarge => "HTTP/1.1 431 Request Header Fields Too Large\r\n"u8,
        HttpStatus.NotImplemented => "HTTP/1.1 501 Not Implemented\r\n"u8,
        HttpStatus.ServiceUnavailable => "HTTP/1.1 503 Service Unavailable\r\n"u8,
        HttpStatus.HttpVersionNotSupported => "HTTP/1.1 505 HTTP Version Not Supported\r\n"u8,
        _ => "HTTP/1.1 500 Internal Server Error\r\n"u8,
    };
}
