using System.Net.WebSockets;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.WebSockets;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// HttpArena's echo-ws: <c>GET /ws</c> upgrades to WebSocket, and every message comes back with its type. It takes
/// messages in pieces and sends each piece on as it comes, so a message of any size up to the limit is echoed without
/// being held whole; the usual one-frame message is one piece. A request that is not a valid handshake gets 400 (426
/// for another version), as the venue's peer answers.
/// </summary>
internal sealed class WebSocketEcho : IWebSocketHandler
{
    public static WebSocketEcho Instance { get; } = new();

    public bool StreamsMessages => true;

    public static void Answer(HttpRequest request, HttpResponse response) => response.AcceptWebSocket(request, Instance);

    public ValueTask OnMessageAsync(WebSocketSession session, WebSocketMessage message)
    {
        session.Send(message.Type, message.Payload, message.EndOfMessage);
        return default;
    }

    public void OnClosed(WebSocketSession session, WebSocketCloseStatus status)
    {
    }
}
