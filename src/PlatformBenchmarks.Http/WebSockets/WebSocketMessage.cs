using System.Buffers;
using System.Net.WebSockets;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>A message the client sent, or a piece of one (see <see cref="IWebSocketHandler.StreamsMessages"/>).</summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1815", Justification = "A view of borrowed bytes, handed to a handler and never compared.")]
public readonly struct WebSocketMessage(WebSocketMessageType type, ReadOnlySequence<byte> payload, bool endOfMessage)
{
    /// <summary><see cref="WebSocketMessageType.Text"/> or <see cref="WebSocketMessageType.Binary"/>.</summary>
    public WebSocketMessageType Type { get; } = type;

    /// <summary>The bytes, unmasked; borrowed until the handler's task completes.</summary>
    public ReadOnlySequence<byte> Payload { get; } = payload;

    /// <summary>Whether this is the message's last piece (always, for a handler that takes messages whole).</summary>
    public bool EndOfMessage { get; } = endOfMessage;
}
