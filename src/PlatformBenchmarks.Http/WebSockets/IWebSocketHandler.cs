using System.Net.WebSockets;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>
/// What an application does with a WebSocket it accepted (<see cref="HttpResponse.AcceptWebSocket"/>): it receives the
/// client's messages, in order, and answers through the <see cref="WebSocketSession"/>. The codec never calls it for
/// control frames (ping, pong, close), which it answers itself. One instance may serve many connections: the session
/// is the connection's.
/// </summary>
public interface IWebSocketHandler
{
    /// <summary>
    /// Whether messages come in pieces as their bytes arrive (true) or whole (false), gathered by the codec up to
    /// <see cref="HttpLimits.MaxWebSocketMessageSize"/>. Asked once, when the connection switches to WebSocket.
    /// </summary>
    bool StreamsMessages { get; }

    /// <summary>
    /// A message, or a piece of one when <see cref="StreamsMessages"/>. Its payload is borrowed from the connection's
    /// buffers and valid until the returned task completes; the codec reads nothing further meanwhile, so messages are
    /// handled one at a time. A text message's bytes are valid UTF-8 once whole; a piece may end inside a character.
    /// </summary>
    ValueTask OnMessageAsync(WebSocketSession session, WebSocketMessage message);

    /// <summary>
    /// The connection has ended: <paramref name="status"/> is the code of the close the client sent, the code the server
    /// closed with, or <see cref="WebSocketCloseStatus.Empty"/> when the connection ended without a close frame.
    /// </summary>
    void OnClosed(WebSocketSession session, WebSocketCloseStatus status);
}
