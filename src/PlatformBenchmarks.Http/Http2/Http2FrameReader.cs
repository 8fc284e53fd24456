using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>The outcome of one attempt to read a frame.</summary>
internal enum Http2ReadStatus : byte
{
    /// <summary>A whole frame was read; an extension frame's type is one <see cref="Http2FrameType"/> does not name.</summary>
    Complete,

    /// <summary>The buffer ends inside the frame: wait for more bytes.</summary>
    Incomplete,

    /// <summary>
    /// The frame breaks RFC 9113. A stream error comes only with the whole frame read, so the connection can consume
    /// it, reset the stream and go on; a connection error may come as soon as the header shows it.
    /// </summary>
    Error,
}

/// <summary>
/// Reads HTTP/2 frames (RFC 9113 §4, §6) from a connection's receive buffer: the 9-byte header, then the checks that the
/// frame's type asks of its length, flags, stream identifier and fixed fields, each violation mapped to its error code
/// and to a connection or a stream error. A frame over SETTINGS_MAX_FRAME_SIZE is refused from its header alone, before
/// its payload is waited for, so nothing larger than that is ever buffered. The header and fixed fields are read in
/// place when they lie in the first segment, as they nearly always do; what the frame carries (DATA's data, a field
/// block fragment, SETTINGS' entries) is handed on as a slice of the buffer, never copied. It keeps no state: what
/// depends on the connection (the CONTINUATION sequence, stream states, windows) is the connection's.
/// </summary>
internal static class Http2FrameReader
{
    /// <summary>
    /// Reads the frame at the start of <paramref name="buffer"/>. On <see cref="Http2ReadStatus.Complete"/>,
    /// <paramref name="content"/> is the frame's content: DATA's data and HEADERS' fragment without padding or priority
    /// fields, CONTINUATION's fragment, SETTINGS' entries, GOAWAY's debug data, an extension frame's payload; the frame
    /// took <see cref="Http2Frame.TotalLength"/> bytes. A stream error is reported only once the whole frame is here,
    /// with <paramref name="frame"/> filled, so that the same length may be consumed.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Http2ReadStatus TryReadFrame(
        in ReadOnlySequence<byte> buffer,
        int maxFrameSize,
        out Http2Frame frame,
        out ReadOnlySequence<byte> content,
        out Http2FrameError error)
    {
        ReadOnlySpan<byte> first = buffer.FirstSpan;
        if (first.Length >= Http2Frame.HeaderLength)
        {
            int length = (first[0] << 16) | (first[1] << 8) | first[2];
            if (first.Length >= Http2Frame.HeaderLength + length)
            {
                // The common case: the whole frame in the first segment.
                return ReadFrame(first.Slice(0, Http2Frame.HeaderLength + length), buffer, maxFrameSize, out frame, out content, out error);
            }
        }

        return TryReadSplitFrame(buffer, maxFrameSize, out frame, out content, out error);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Http2ReadStatus TryReadSplitFrame(
        in ReadOnlySequence<byte> buffer,
        int maxFrameSize,
        out Http2Frame frame,
        out ReadOnlySequence<byte> content,
        out Http2FrameError error)
    {
        content = default;
        frame = default;
        error = default;
        if (buffer.Length < Http2Frame.HeaderLength)
        {
            return Http2ReadStatus.Incomplete;
        }

        Span<byte> header = stackalloc byte[Http2Frame.HeaderLength];
        buffer.Slice(0, Http2Frame.HeaderLength).CopyTo(header);
        ReadHeader(header, out frame);
        if (CheckHeader(ref frame, maxFrameSize, out error) is Http2ReadStatus.Error)
        {
            return Http2ReadStatus.Error;
        }

        if (buffer.Length < frame.TotalLength)
        {
            return Http2ReadStatus.Incomplete;
        }

        // The fixed fields are at most the first 8 bytes of the payload (GOAWAY's, PING's): copied, the rest sliced.
        ReadOnlySequence<byte> payload = buffer.Slice(Http2Frame.HeaderLength, frame.PayloadLength);
        Span<byte> fixedFields = stackalloc byte[8];
        int fixedLength = (int)Math.Min(8, payload.Length);
        payload.Slice(0, fixedLength).CopyTo(fixedFields);
        return ReadPayload(ref frame, fixedFields.Slice(0, fixedLength), payload, out content, out error);
    }

    private static Http2ReadStatus ReadFrame(
        ReadOnlySpan<byte> bytes,
        in ReadOnlySequence<byte> buffer,
        int maxFrameSize,
        out Http2Frame frame,
        out ReadOnlySequence<byte> content,
        out Http2FrameError error)
    {
        ReadHeader(bytes, out frame);
        if (CheckHeader(ref frame, maxFrameSize, out error) is Http2ReadStatus.Error)
        {
            content = default;
            return Http2ReadStatus.Error;
        }

        return ReadPayload(ref frame, bytes.Slice(Http2Frame.HeaderLength), buffer.Slice(Http2Frame.HeaderLength, frame.PayloadLength), out content, out error);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ReadHeader(ReadOnlySpan<byte> header, out Http2Frame frame)
    {
        frame = default;
        frame.PayloadLength = (header[0] << 16) | (header[1] << 8) | header[2];
        frame.Type = (Http2FrameType)header[3];
        frame.Flags = header[4];
        frame.StreamId = (int)(BinaryPrimitives.ReadUInt32BigEndian(header.Slice(5)) & 0x7FFF_FFFF);
    }

    /// <summary>What the header alone shows: all connection errors, so they need not wait for the payload.</summary>
    private static Http2ReadStatus CheckHeader(ref Http2Frame frame, int maxFrameSize, out Http2FrameError error)
    {
        error = default;
        if (frame.PayloadLength > maxFrameSize)
        {
            // §4.2: a frame over the limit is refused before its payload is read, so it is never buffered.
            error = Http2FrameError.Connection(Http2ErrorCode.FrameSizeError, "Frame larger than SETTINGS_MAX_FRAME_SIZE.");
            return Http2ReadStatus.Error;
        }

        bool onStream = frame.StreamId != 0;
        int length = frame.PayloadLength;
        string? reason = null;
        Http2ErrorCode code = Http2ErrorCode.ProtocolError;
        switch (frame.Type)
        {
            case Http2FrameType.Data or Http2FrameType.Headers or Http2FrameType.Priority or Http2FrameType.RstStream or Http2FrameType.Continuation:
                if (!onStream)
                {
                    // §6.1, §6.2, §6.3, §6.4, §6.10.
                    reason = "Frame type requires a stream.";
                }
                else if (frame.Type == Http2FrameType.RstStream && length != 4)
                {
                    // §6.4.
                    (code, reason) = (Http2ErrorCode.FrameSizeError, "RST_STREAM is 4 bytes.");
                }
                else if (length < MandatoryLength(frame))
                {
                    // §4.2: too short for its pad length or priority fields; §6.1, §6.2.
                    (code, reason) = (Http2ErrorCode.FrameSizeError, "Frame too short for its fixed fields.");
                }

                break;
            case Http2FrameType.Settings:
                // §6.5.
                (code, reason) = onStream ? (Http2ErrorCode.ProtocolError, "SETTINGS on a stream.")
                    : frame.IsAck && length != 0 ? (Http2ErrorCode.FrameSizeError, "SETTINGS ACK with a payload.")
                    : length % 6 != 0 ? (Http2ErrorCode.FrameSizeError, "SETTINGS not a multiple of 6 bytes.")
                    : (code, null);
                break;
            case Http2FrameType.PushPromise:
                // §8.4: a client cannot push.
                reason = "PUSH_PROMISE from a client.";
                break;
            case Http2FrameType.Ping:
                // §6.7.
                (code, reason) = onStream ? (Http2ErrorCode.ProtocolError, "PING on a stream.")
                    : length != 8 ? (Http2ErrorCode.FrameSizeError, "PING is 8 bytes.")
                    : (code, null);
                break;
            case Http2FrameType.GoAway:
                // §6.8.
                (code, reason) = onStream ? (Http2ErrorCode.ProtocolError, "GOAWAY on a stream.")
                    : length < 8 ? (Http2ErrorCode.FrameSizeError, "GOAWAY is at least 8 bytes.")
                    : (code, null);
                break;
            case Http2FrameType.WindowUpdate:
                // §6.9: a wrong length is a connection error wherever the frame is.
                (code, reason) = length != 4 ? (Http2ErrorCode.FrameSizeError, "WINDOW_UPDATE is 4 bytes.") : (code, null);
                break;
        }

        if (reason is null)
        {
            return Http2ReadStatus.Complete;
        }

        error = Http2FrameError.Connection(code, reason);
        return Http2ReadStatus.Error;
    }

    // The pad length byte and the priority fields a frame's flags announce.
    private static int MandatoryLength(in Http2Frame frame) => frame.Type switch
    {
        Http2FrameType.Data => frame.HasFlag(Http2FrameFlags.Padded) ? 1 : 0,
        Http2FrameType.Headers => (frame.HasFlag(Http2FrameFlags.Padded) ? 1 : 0) + (frame.HasFlag(Http2FrameFlags.Priority) ? 5 : 0),
        _ => 0,
    };

    /// <summary>What the payload shows; <paramref name="fixedFields"/> holds at least its first 8 bytes, or all of it.</summary>
    private static Http2ReadStatus ReadPayload(
        ref Http2Frame frame,
        ReadOnlySpan<byte> fixedFields,
        in ReadOnlySequence<byte> payload,
        out ReadOnlySequence<byte> content,
        out Http2FrameError error)
    {
        error = default;
        content = payload;
        switch (frame.Type)
        {
            case Http2FrameType.Data:
            case Http2FrameType.Headers:
                return ReadPaddedContent(ref frame, fixedFields, payload, out content, out error);
            case Http2FrameType.Priority:
                if (frame.PayloadLength != 5)
                {
                    // §6.3: a stream error, so the connection goes on.
                    error = Http2FrameError.Stream(Http2ErrorCode.FrameSizeError, "PRIORITY is 5 bytes.");
                    return Http2ReadStatus.Error;
                }

                return ReadPriority(ref frame, fixedFields, out error);
            case Http2FrameType.RstStream:
                frame.ErrorCode = (Http2ErrorCode)BinaryPrimitives.ReadUInt32BigEndian(fixedFields);
                break;
            case Http2FrameType.Settings:
                return CheckSettings(payload, out error);
            case Http2FrameType.Ping:
                frame.PingData = BinaryPrimitives.ReadUInt64BigEndian(fixedFields);
                break;
            case Http2FrameType.GoAway:
                frame.LastStreamId = (int)(BinaryPrimitives.ReadUInt32BigEndian(fixedFields) & 0x7FFF_FFFF);
                frame.ErrorCode = (Http2ErrorCode)BinaryPrimitives.ReadUInt32BigEndian(fixedFields.Slice(4));
                content = payload.Slice(8);
                break;
            case Http2FrameType.WindowUpdate:
                frame.WindowIncrement = (int)(BinaryPrimitives.ReadUInt32BigEndian(fixedFields) & 0x7FFF_FFFF);
                if (frame.WindowIncrement == 0)
                {
                    // §6.9: on a stream, that stream's error; on the connection, the connection's.
                    error = new Http2FrameError(Http2ErrorCode.ProtocolError, frame.StreamId == 0, "WINDOW_UPDATE of 0.");
                    return Http2ReadStatus.Error;
                }

                break;
        }

        return Http2ReadStatus.Complete;
    }

    private static Http2ReadStatus ReadPaddedContent(
        ref Http2Frame frame,
        ReadOnlySpan<byte> fixedFields,
        in ReadOnlySequence<byte> payload,
        out ReadOnlySequence<byte> content,
        out Http2FrameError error)
    {
        error = default;
        int start = 0;
        int padding = 0;
        if (frame.HasFlag(Http2FrameFlags.Padded))
        {
            padding = fixedFields[0];
            start = 1;
        }

        if (frame.Type == Http2FrameType.Headers && frame.HasFlag(Http2FrameFlags.Priority))
        {
            if (ReadPriority(ref frame, fixedFields.Slice(start), out error) == Http2ReadStatus.Error)
            {
                content = default;
                return Http2ReadStatus.Error;
            }

            start += 5;
        }

        if (padding > frame.PayloadLength - start)
        {
            // §6.1, §6.2: padding as long as what is left, or longer.
            content = default;
            error = Http2FrameError.Connection(Http2ErrorCode.ProtocolError, "Padding longer than the payload.");
            return Http2ReadStatus.Error;
        }

        content = payload.Slice(start, frame.PayloadLength - start - padding);
        return Http2ReadStatus.Complete;
    }

    private static Http2ReadStatus ReadPriority(ref Http2Frame frame, ReadOnlySpan<byte> fields, out Http2FrameError error)
    {
        error = default;
        frame.StreamDependency = (int)(BinaryPrimitives.ReadUInt32BigEndian(fields) & 0x7FFF_FFFF);
        if (frame.StreamDependency == frame.StreamId)
        {
            // §5.3.1: a stream cannot depend on itself.
            error = Http2FrameError.Stream(Http2ErrorCode.ProtocolError, "A stream depends on itself.");
            return Http2ReadStatus.Error;
        }

        return Http2ReadStatus.Complete;
    }

    /// <summary>§6.5.2: the values a setting cannot take; unknown settings are ignored.</summary>
    private static Http2ReadStatus CheckSettings(in ReadOnlySequence<byte> entries, out Http2FrameError error)
    {
        error = default;
        var reader = new SettingsReader(entries);
        while (reader.TryRead(out Http2SettingsParameter parameter, out uint value))
        {
            (Http2ErrorCode code, string? reason) = parameter switch
            {
                Http2SettingsParameter.EnablePush when value > 1 => (Http2ErrorCode.ProtocolError, "SETTINGS_ENABLE_PUSH not 0 or 1."),
                Http2SettingsParameter.InitialWindowSize when value > Http2Frame.MaxWindowSize => (Http2ErrorCode.FlowControlError, "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1."),
                Http2SettingsParameter.MaxFrameSize when value is < Http2Frame.DefaultMaxFrameSize or > Http2Frame.MaxAllowedFrameSize =>
                    (Http2ErrorCode.ProtocolError, "SETTINGS_MAX_FRAME_SIZE outside 2^14..2^24-1."),
                _ => (Http2ErrorCode.NoError, null),
            };

            if (reason is not null)
            {
                error = Http2FrameError.Connection(code, reason);
                return Http2ReadStatus.Error;
            }
        }

        return Http2ReadStatus.Complete;
    }

    /// <summary>Walks a SETTINGS frame's entries, 6 bytes each (§6.5.1), whether or not they are contiguous.</summary>
    public ref struct SettingsReader(ReadOnlySequence<byte> entries)
    {
        private ReadOnlySequence<byte> _rest = entries;

        public bool TryRead(out Http2SettingsParameter parameter, out uint value)
        {
            if (_rest.Length < 6)
            {
                parameter = default;
                value = 0;
                return false;
            }

            Span<byte> entry = stackalloc byte[6];
            _rest.Slice(0, 6).CopyTo(entry);
            _rest = _rest.Slice(6);
            parameter = (Http2SettingsParameter)BinaryPrimitives.ReadUInt16BigEndian(entry);
            value = BinaryPrimitives.ReadUInt32BigEndian(entry.Slice(2));
            return true;
        }
    }
}
