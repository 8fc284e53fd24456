using System.Buffers;
using System.Buffers.Binary;
using System.Net.WebSockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Unicode;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>The frames of RFC 6455 §5: the header, the payload as it arrives, the control frames.</summary>
internal sealed partial class WebSocketConnection
{
    // 2 bytes, a 64-bit length, the mask key (§5.2).
    private const int MaxHeaderLength = 14;

    private const int MaxControlPayload = 125;

    /// <summary>A frame's header as §5.2 lays it out.</summary>
    private readonly struct FrameHeader(byte first, int length, ulong payloadLength, uint maskKey, bool masked)
    {
        public bool Fin => (first & 0x80) != 0;

        /// <summary>RSV1-3: no extension is negotiated, so none may be set (§5.2).</summary>
        public bool HasReservedBits => (first & 0x70) != 0;

        public WebSocketOpcode Opcode => (WebSocketOpcode)(first & 0x0F);

        public bool IsControl => (first & 0x08) != 0;

        public bool Masked => masked;

        /// <summary>The header's own length, mask key included.</summary>
        public int Length => length;

        public ulong PayloadLength => payloadLength;

        public uint MaskKey => maskKey;
    }

    /// <summary>Uses the next frame, or the next piece of one, in <paramref name="buffer"/>, slicing off what it used.</summary>
    private Step ProcessNext(ref ReadOnlySequence<byte> buffer, out ValueTask pending)
    {
        pending = default;
        if (!_inFrame)
        {
            if (!TryReadHeader(in buffer, out FrameHeader header))
            {
                return Step.NeedMore;
            }

            if (_closing)
            {
                return SkipAfterClose(ref buffer, in header);
            }

            if (header.HasReservedBits || !header.Masked || (header.PayloadLength >> 63) != 0)
            {
                return Refuse(ref buffer, in header, WebSocketCloseStatus.ProtocolError,
                    header.HasReservedBits ? "reserved bits set" : !header.Masked ? "an unmasked frame (§5.1)" : "a length past 63 bits");
            }

            if (header.IsControl)
            {
                return ProcessControl(ref buffer, in header);
            }

            WebSocketOpcode opcode = header.Opcode;
            if (opcode > WebSocketOpcode.Binary || (opcode == WebSocketOpcode.Continuation) != _inMessage)
            {
                return Refuse(ref buffer, in header, WebSocketCloseStatus.ProtocolError,
                    opcode > WebSocketOpcode.Binary ? "an unknown opcode" : _inMessage ? "a new message inside a fragmented one" : "a continuation outside a message");
            }

            // §10.4: a message past the limit is refused by its header, before any of it is kept.
            if (header.PayloadLength > (ulong)(_maxMessageSize - (_inMessage ? _messageLength : 0)))
            {
                return Refuse(ref buffer, in header, WebSocketCloseStatus.MessageTooBig, "a message past the limit");
            }

            ReadOnlySpan<byte> first = buffer.FirstSpan;
            if (header.Fin && opcode != WebSocketOpcode.Continuation && first.Length >= header.Length && (ulong)(first.Length - header.Length) >= header.PayloadLength)
            {
                return ProcessWholeFrame(ref buffer, in header, out pending);
            }

            _inFrame = true;
            _frameFin = header.Fin;
            _frameRemaining = (long)header.PayloadLength;
            _maskKey = header.MaskKey;
            if (opcode != WebSocketOpcode.Continuation)
            {
                _inMessage = true;
                _messageType = opcode == WebSocketOpcode.Text ? WebSocketMessageType.Text : WebSocketMessageType.Binary;
                _messageLength = 0;
                _utf8.Reset();
            }

            buffer = buffer.Slice(header.Length);
        }

        return ProcessPayload(ref buffer, out pending);
    }

    /// <summary>
    /// The usual frame: a whole message in one frame, all of it in the first segment. It is unmasked where it lies and
    /// handed over from there.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Step ProcessWholeFrame(ref ReadOnlySequence<byte> buffer, ref readonly FrameHeader header, out ValueTask pending)
    {
        int length = (int)header.PayloadLength;
        Span<byte> payload = MemoryMarshal.AsMemory(buffer.First).Span.Slice(header.Length, length);
        WebSocketMask.Apply(payload, header.MaskKey);
        bool text = header.Opcode == WebSocketOpcode.Text;
        ReadOnlySequence<byte> message = buffer.Slice(header.Length, length);
        buffer = buffer.Slice(header.Length + length);
        if (text && !Ascii.IsValid(payload) && !Utf8.IsValid(payload))
        {
            pending = default;
            Fail(WebSocketCloseStatus.InvalidPayloadData, "text that is not UTF-8 (§8.1)");
            return Step.Continue;
        }

        pending = Dispatch(text ? WebSocketMessageType.Text : WebSocketMessageType.Binary, in message, endOfMessage: true);
        return Step.Continue;
    }

    /// <summary>The payload of a data frame as it arrives: handed over in pieces, or gathered into the message.</summary>
    private Step ProcessPayload(ref ReadOnlySequence<byte> buffer, out ValueTask pending)
    {
        pending = default;
        long take = Math.Min(_frameRemaining, buffer.Length);
        if (take == 0 && _frameRemaining != 0)
        {
            return Step.NeedMore;
        }

        ReadOnlySequence<byte> piece = buffer.Slice(0, take);
        buffer = buffer.Slice(take);
        _frameRemaining -= take;
        bool frameDone = _frameRemaining == 0;
        bool messageDone = frameDone && _frameFin;
        _inFrame = !frameDone;
        if (_closing)
        {
            // The rest of a frame refused, or one after the close: dropped.
            return Step.Continue;
        }

        long offset = _messageLength;
        _messageLength += take;
        bool text = _messageType == WebSocketMessageType.Text;
        ReadOnlySequence<byte> message;
        if (_streams)
        {
            _maskKey = WebSocketMask.ApplyInPlace(in piece, _maskKey);
            if (text && !_utf8.Append(in piece))
            {
                Fail(WebSocketCloseStatus.InvalidPayloadData, "text that is not UTF-8 (§8.1)");
                return Step.Continue;
            }

            if (piece.IsEmpty && !messageDone)
            {
                return Step.Continue;
            }

            message = piece;
        }
        else
        {
            Span<byte> target = Gather(offset, (int)take);
            _maskKey = WebSocketMask.CopyUnmasked(in piece, target, _maskKey);
            if (text && !_utf8.Append(target))
            {
                Fail(WebSocketCloseStatus.InvalidPayloadData, "text that is not UTF-8 (§8.1)");
                return Step.Continue;
            }

            if (!messageDone)
            {
                return Step.Continue;
            }

            message = _gathered is null ? default : new ReadOnlySequence<byte>(_gathered, 0, (int)_messageLength);
        }

        if (messageDone)
        {
            _inMessage = false;
            if (text && !_utf8.IsComplete)
            {
                Fail(WebSocketCloseStatus.InvalidPayloadData, "text that ends inside a character (§8.1)");
                return Step.Continue;
            }
        }

        pending = Dispatch(_messageType, in message, messageDone);
        return Step.Continue;
    }

    /// <summary>Room in the gathered message for <paramref name="count"/> bytes at <paramref name="offset"/>, grown as they come.</summary>
    private Span<byte> Gather(long offset, int count)
    {
        long needed = offset + count;
        if (_gathered is null || _gathered.Length < needed)
        {
            // Grown by what arrives, not by what a header announces: a client cannot make the server hold memory it has
            // not sent. The limit bounds it (checked by the header).
            long size = Math.Min(Math.Max(needed, (_gathered?.Length ?? 256) * 2L), _maxMessageSize);
            byte[] grown = ArrayPool<byte>.Shared.Rent((int)Math.Max(size, needed));
            if (_gathered is not null)
            {
                _gathered.AsSpan(0, (int)offset).CopyTo(grown);
                ArrayPool<byte>.Shared.Return(_gathered);
            }

            _gathered = grown;
        }

        return _gathered.AsSpan((int)offset, count);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ValueTask Dispatch(WebSocketMessageType type, in ReadOnlySequence<byte> payload, bool endOfMessage)
    {
        try
        {
            return _handler.OnMessageAsync(_session, new WebSocketMessage(type, payload, endOfMessage));
        }
        catch (Exception ex)
        {
            return ValueTask.FromException(ex);
        }
    }

    /// <summary>Ping, pong and close: at most 125 bytes, never fragmented (§5.5), used once all of it is here.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private Step ProcessControl(ref ReadOnlySequence<byte> buffer, ref readonly FrameHeader header)
    {
        WebSocketOpcode opcode = header.Opcode;
        if (opcode > WebSocketOpcode.Pong || !header.Fin || header.PayloadLength > MaxControlPayload)
        {
            return Refuse(ref buffer, in header, WebSocketCloseStatus.ProtocolError,
                opcode > WebSocketOpcode.Pong ? "an unknown opcode" : !header.Fin ? "a fragmented control frame (§5.5)" : "a control frame over 125 bytes (§5.5)");
        }

        int length = (int)header.PayloadLength;
        if (buffer.Length < header.Length + length)
        {
            return Step.NeedMore;
        }

        Span<byte> payload = stackalloc byte[MaxControlPayload];
        payload = payload.Slice(0, length);
        buffer.Slice(header.Length, length).CopyTo(payload);
        WebSocketMask.Apply(payload, header.MaskKey);
        buffer = buffer.Slice(header.Length + length);
        switch (opcode)
        {
            case WebSocketOpcode.Ping:
                _session.WritePong(payload);
                return Step.Continue;
            case WebSocketOpcode.Pong:
                // An unsolicited pong is a heartbeat that needs no answer (§5.5.3).
                return Step.Continue;
            default:
                return ProcessClose(payload);
        }
    }

    /// <summary>The client's close (§5.5.1): an optional status (§7.4) and a UTF-8 reason; the server answers with the same status.</summary>
    private Step ProcessClose(ReadOnlySpan<byte> payload)
    {
        if (payload.Length == 1)
        {
            Fail(WebSocketCloseStatus.ProtocolError, "a close payload of one byte");
            return Step.Continue;
        }

        WebSocketCloseStatus status = WebSocketCloseStatus.Empty;
        if (payload.Length >= 2)
        {
            int code = BinaryPrimitives.ReadUInt16BigEndian(payload);
            if (!WebSocketCloseCodes.IsSendable(code))
            {
                Fail(WebSocketCloseStatus.ProtocolError, "a close code no endpoint sends (§7.4)");
                return Step.Continue;
            }

            if (!Utf8.IsValid(payload.Slice(2)))
            {
                Fail(WebSocketCloseStatus.InvalidPayloadData, "a close reason that is not UTF-8 (§5.5.1)");
                return Step.Continue;
            }

            status = (WebSocketCloseStatus)code;
        }

        _receivedClose = true;
        _receivedStatus = status;
        _session.WriteClose(status, default);
        return Step.Closed;
    }

    /// <summary>Fails the connection for the frame whose header is in hand, and skips that frame's payload by its length.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private Step Refuse(ref ReadOnlySequence<byte> buffer, ref readonly FrameHeader header, WebSocketCloseStatus status, string reason)
    {
        Fail(status, reason);
        return SkipAfterClose(ref buffer, in header);
    }

    /// <summary>After the server's close: the client's close ends the connection, any other frame is skipped by its length.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private Step SkipAfterClose(ref ReadOnlySequence<byte> buffer, ref readonly FrameHeader header)
    {
        if (header.Opcode == WebSocketOpcode.Close)
        {
            buffer = buffer.Slice(buffer.End);
            return Step.Closed;
        }

        if (header.PayloadLength > long.MaxValue)
        {
            // No frame can follow a length nobody can send: the rest of the stream is dropped.
            _discardAll = true;
            buffer = buffer.Slice(buffer.End);
            return Step.NeedMore;
        }

        buffer = buffer.Slice(header.Length);
        _inFrame = true;
        _frameFin = header.Fin;
        _frameRemaining = (long)header.PayloadLength;
        return Step.Continue;
    }

    /// <summary>Reads the header at the start of <paramref name="buffer"/>; false while not all of it is here.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryReadHeader(in ReadOnlySequence<byte> buffer, out FrameHeader header)
    {
        ReadOnlySpan<byte> first = buffer.FirstSpan;
        if (_discardAll)
        {
            header = default;
            return false;
        }

        return first.Length >= MaxHeaderLength || first.Length == buffer.Length
            ? TryReadHeader(first, out header)
            : TryReadSplitHeader(in buffer, out header);
    }

    /// <summary>A header that may go on past the first segment: its bytes gathered first.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool TryReadSplitHeader(in ReadOnlySequence<byte> buffer, out FrameHeader header)
    {
        Span<byte> bytes = stackalloc byte[MaxHeaderLength];
        int length = (int)Math.Min(MaxHeaderLength, buffer.Length);
        buffer.Slice(0, length).CopyTo(bytes);
        return TryReadHeader(bytes.Slice(0, length), out header);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool TryReadHeader(ReadOnlySpan<byte> bytes, out FrameHeader header)
    {
        if (bytes.Length < 2)
        {
            header = default;
            return false;
        }

        byte second = bytes[1];
        bool masked = (second & 0x80) != 0;
        int lengthCode = second & 0x7F;
        int extended = lengthCode < 126 ? 0 : lengthCode == 126 ? 2 : 8;
        int length = 2 + extended + (masked ? 4 : 0);
        if (bytes.Length < length)
        {
            header = default;
            return false;
        }

        // The length is taken in whatever form it came: §5.2 asks senders for the shortest, and refusing a longer one
        // would protect nothing.
        ulong payloadLength = extended == 0 ? (ulong)lengthCode
            : extended == 2 ? BinaryPrimitives.ReadUInt16BigEndian(bytes.Slice(2))
            : BinaryPrimitives.ReadUInt64BigEndian(bytes.Slice(2));
        uint key = masked ? WebSocketMask.ReadKey(bytes.Slice(2 + extended)) : 0;
        header = new FrameHeader(bytes[0], length, payloadLength, key, masked);
        return true;
    }
}
