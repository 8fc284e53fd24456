using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using System.Net.WebSockets;
using System.Runtime.CompilerServices;
using System.Text.Unicode;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>
/// One WebSocket connection as its handler sees it: it sends messages and closes. Frames are written into the
/// connection's output and sent when the codec flushes, once per read of the client's bytes, as HTTP/1.1's responses
/// are; the handler never writes protocol bytes. Use it only inside <see cref="IWebSocketHandler.OnMessageAsync"/>,
/// until its task completes: the connection's loop owns it.
/// </summary>
public sealed class WebSocketSession
{
    // A server's frames are never masked (RFC 6455 §5.1): the header is 2, 4 or 10 bytes.
    private const int MaxHeaderLength = 10;

    // A payload up to this size is written behind its header in one span, as HTTP/1.1 does with a small body.
    private const int InlinePayloadLimit = 3 * 1024;

    private readonly PipeWriter _output;

    // A message is being sent in pieces: its next frame is a continuation (§5.4).
    private bool _sendingMessage;

    internal WebSocketSession(PipeWriter output, HttpConnectionContext connection)
    {
        _output = output;
        Connection = connection;
    }

    /// <summary>What the connection gives its handler: its loop, the clock, the limits.</summary>
    public HttpConnectionContext Connection { get; }

    /// <summary>Whether the server has sent its close frame: nothing else may be sent (RFC 6455 §5.5.1).</summary>
    public bool CloseSent { get; private set; }

    /// <summary>The status the server closed with, once <see cref="CloseSent"/>.</summary>
    internal WebSocketCloseStatus SentStatus { get; private set; }

    /// <summary>Whether anything has been written since the codec last flushed.</summary>
    internal bool HasOutput { get; set; }

    /// <summary>Sends a whole message.</summary>
    public void Send(WebSocketMessageType type, ReadOnlySpan<byte> payload) => Send(type, payload, endOfMessage: true);

    /// <summary>Sends a whole message, or a piece of one that goes on with the next call unless <paramref name="endOfMessage"/>.</summary>
    public void Send(WebSocketMessageType type, ReadOnlySpan<byte> payload, bool endOfMessage)
    {
        byte first = StartFrame(type, endOfMessage);
        int headerLength = HeaderLength(payload.Length);
        if (payload.Length <= InlinePayloadLimit)
        {
            Span<byte> span = _output.GetSpan(headerLength + payload.Length);
            WriteHeader(span, first, payload.Length);
            payload.CopyTo(span.Slice(headerLength));
            _output.Advance(headerLength + payload.Length);
        }
        else
        {
            WriteLarge(first, headerLength, payload);
        }

        HasOutput = true;
    }

    /// <summary>Sends a whole message, or a piece of one (see <see cref="Send(WebSocketMessageType, ReadOnlySpan{byte}, bool)"/>).</summary>
    public void Send(WebSocketMessageType type, in ReadOnlySequence<byte> payload, bool endOfMessage = true)
    {
        if (payload.IsSingleSegment)
        {
            Send(type, payload.FirstSpan, endOfMessage);
            return;
        }

        if (payload.Length > int.MaxValue)
        {
            throw new ArgumentOutOfRangeException(nameof(payload), "A frame this server sends holds at most 2 GiB.");
        }

        byte first = StartFrame(type, endOfMessage);
        int length = (int)payload.Length;
        int headerLength = HeaderLength(length);
        Span<byte> header = _output.GetSpan(headerLength);
        WriteHeader(header, first, length);
        _output.Advance(headerLength);
        foreach (ReadOnlyMemory<byte> segment in payload)
        {
            _output.Write(segment.Span);
        }

        HasOutput = true;
    }

    /// <summary>
    /// Starts the closing handshake (RFC 6455 §7.1.2): sends a close frame with <paramref name="status"/> and
    /// <paramref name="reason"/> (UTF-8, at most 123 bytes); the connection ends when the client answers with its own,
    /// or after <see cref="HttpLimits.MaxLingerTime"/>. Messages still arriving meanwhile are dropped.
    /// </summary>
    public void Close(WebSocketCloseStatus status, ReadOnlySpan<byte> reason)
    {
        if (!WebSocketCloseCodes.IsSendable((int)status))
        {
            throw new ArgumentOutOfRangeException(nameof(status), $"{(int)status} is not a status a close frame carries (RFC 6455 §7.4).");
        }

        if (reason.Length > 123 || !Utf8.IsValid(reason))
        {
            throw new ArgumentException("A close reason is UTF-8 of at most 123 bytes (RFC 6455 §5.5).", nameof(reason));
        }

        if (CloseSent)
        {
            return;
        }

        WriteClose(status, reason);
    }

    /// <summary>The codec's close frame: a reply, or the close of a failed connection. An empty status sends no payload.</summary>
    internal void WriteClose(WebSocketCloseStatus status, ReadOnlySpan<byte> reason)
    {
        bool hasStatus = status != WebSocketCloseStatus.Empty;
        int payloadLength = hasStatus ? 2 + reason.Length : 0;
        Span<byte> span = _output.GetSpan(2 + payloadLength);
        span[0] = 0x80 | (byte)WebSocketOpcode.Close;
        span[1] = (byte)payloadLength;
        if (hasStatus)
        {
            BinaryPrimitives.WriteUInt16BigEndian(span.Slice(2), (ushort)status);
            reason.CopyTo(span.Slice(4));
        }

        _output.Advance(2 + payloadLength);
        CloseSent = true;
        SentStatus = status;
        HasOutput = true;
    }

    /// <summary>A pong with the ping's payload (RFC 6455 §5.5.3).</summary>
    internal void WritePong(ReadOnlySpan<byte> payload)
    {
        Span<byte> span = _output.GetSpan(2 + payload.Length);
        span[0] = 0x80 | (byte)WebSocketOpcode.Pong;
        span[1] = (byte)payload.Length;
        payload.CopyTo(span.Slice(2));
        _output.Advance(2 + payload.Length);
        HasOutput = true;
    }

    /// <summary>The first byte of a data frame: FIN, and the message's opcode or continuation.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private byte StartFrame(WebSocketMessageType type, bool endOfMessage)
    {
        if (CloseSent || type is not (WebSocketMessageType.Text or WebSocketMessageType.Binary))
        {
            ThrowCannotSend(type);
        }

        byte opcode = _sendingMessage ? (byte)WebSocketOpcode.Continuation
            : type == WebSocketMessageType.Text ? (byte)WebSocketOpcode.Text : (byte)WebSocketOpcode.Binary;
        _sendingMessage = !endOfMessage;
        return (byte)((endOfMessage ? 0x80 : 0) | opcode);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int HeaderLength(int payloadLength) => payloadLength < 126 ? 2 : payloadLength <= ushort.MaxValue ? 4 : MaxHeaderLength;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void WriteHeader(Span<byte> span, byte first, int payloadLength)
    {
        span[0] = first;
        if (payloadLength < 126)
        {
            span[1] = (byte)payloadLength;
        }
        else if (payloadLength <= ushort.MaxValue)
        {
            span[1] = 126;
            BinaryPrimitives.WriteUInt16BigEndian(span.Slice(2), (ushort)payloadLength);
        }
        else
        {
            span[1] = 127;
            BinaryPrimitives.WriteUInt64BigEndian(span.Slice(2), (ulong)payloadLength);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WriteLarge(byte first, int headerLength, ReadOnlySpan<byte> payload)
    {
        Span<byte> header = _output.GetSpan(headerLength);
        WriteHeader(header, first, payload.Length);
        _output.Advance(headerLength);
        _output.Write(payload);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowCannotSend(WebSocketMessageType type) => throw (CloseSent
        ? new InvalidOperationException("The WebSocket is closing: nothing is sent after the close frame (RFC 6455 §5.5.1).")
        : new ArgumentOutOfRangeException(nameof(type), "A message is text or binary; Close sends the close frame."));
}
