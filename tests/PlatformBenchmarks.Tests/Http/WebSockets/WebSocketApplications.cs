using System.Buffers;
using System.Collections.Concurrent;
using System.Net.WebSockets;
using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.WebSockets;

namespace PlatformBenchmarks.Tests.Http.WebSockets;

/// <summary>"/ws" accepts a WebSocket with the handler given; any other path is a plain 200.</summary>
internal readonly struct WebSocketApplication(IWebSocketHandler handler) : IHttpApplication
{
    public long MaxRequestBodySize(HttpRequest request, long configured) => configured;

    public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
    {
        if (request.Path.SequenceEqual("/ws"u8))
        {
            _ = response.AcceptWebSocket(request, handler);
        }
        else
        {
            response.WriteText(HttpStatus.Ok, "plain\n"u8);
        }

        return default;
    }
}

/// <summary>
/// Echoes every message (or piece, when it streams) with its type and records what it received. A text message
/// "throw" makes it throw; "close" makes it close with 4000; "later" is echoed after an await.
/// </summary>
internal sealed class RecordingHandler(bool streams) : IWebSocketHandler
{
    private readonly TaskCompletionSource<WebSocketCloseStatus> _closed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public bool StreamsMessages => streams;

    public ConcurrentQueue<(WebSocketMessageType Type, byte[] Payload, bool End)> Received { get; } = new();

    public Task<WebSocketCloseStatus> Closed => _closed.Task;

    public ValueTask OnMessageAsync(WebSocketSession session, WebSocketMessage message)
    {
        byte[] payload = message.Payload.ToArray();
        Received.Enqueue((message.Type, payload, message.EndOfMessage));
        string text = message.Type == WebSocketMessageType.Text ? Encoding.UTF8.GetString(payload) : "";
        switch (text)
        {
            case "throw":
                throw new InvalidOperationException("Handler failure.");
            case "close":
                session.Close((WebSocketCloseStatus)4000, "bye"u8);
                return default;
            case "later":
                return EchoLaterAsync(session, message.Type, payload);
            default:
                session.Send(message.Type, message.Payload, message.EndOfMessage);
                return default;
        }
    }

    public void OnClosed(WebSocketSession session, WebSocketCloseStatus status) => _closed.TrySetResult(status);

    private static async ValueTask EchoLaterAsync(WebSocketSession session, WebSocketMessageType type, byte[] payload)
    {
        await Task.Yield();
        session.Send(type, payload);
    }
}
