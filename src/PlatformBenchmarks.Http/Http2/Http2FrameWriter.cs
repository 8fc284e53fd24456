using System.Buffers.Binary;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// Writes the frames a server sends (RFC 9113 §6) into a span the caller got from its output: each method writes one
/// whole frame, or, for DATA, HEADERS and CONTINUATION, the header before a payload the caller writes after it, and
/// returns the bytes written. Nothing is allocated.
/// </summary>
internal static class Http2FrameWriter
{
    public const int SettingLength = 6;

    /// <summary>The 9-byte header (§4.1).</summary>
    public static int WriteHeader(Span<byte> destination, int payloadLength, Http2FrameType type, byte flags, int streamId)
    {
        BinaryPrimitives.WriteUInt32BigEndian(destination, (uint)payloadLength << 8 | (byte)type);
        destination[4] = flags;
        BinaryPrimitives.WriteUInt32BigEndian(destination.Slice(5), (uint)streamId & 0x7FFF_FFFF);
        return Http2Frame.HeaderLength;
    }

    /// <summary>A SETTINGS frame with <paramref name="settings"/> (§6.5); the destination holds 9 + 6 per setting.</summary>
    public static int WriteSettings(Span<byte> destination, ReadOnlySpan<(Http2SettingsParameter Parameter, uint Value)> settings)
    {
        int written = WriteHeader(destination, settings.Length * SettingLength, Http2FrameType.Settings, 0, 0);
        foreach ((Http2SettingsParameter parameter, uint value) in settings)
        {
            BinaryPrimitives.WriteUInt16BigEndian(destination.Slice(written), (ushort)parameter);
            BinaryPrimitives.WriteUInt32BigEndian(destination.Slice(written + 2), value);
            written += SettingLength;
        }

        return written;
    }

    /// <summary>The acknowledgement of the peer's SETTINGS (§6.5.3).</summary>
    public static int WriteSettingsAck(Span<byte> destination) =>
        WriteHeader(destination, 0, Http2FrameType.Settings, Http2FrameFlags.Ack, 0);

    /// <summary>A PING, or its acknowledgement carrying the same data (§6.7).</summary>
    public static int WritePing(Span<byte> destination, ulong data, bool ack)
    {
        WriteHeader(destination, 8, Http2FrameType.Ping, ack ? Http2FrameFlags.Ack : (byte)0, 0);
        BinaryPrimitives.WriteUInt64BigEndian(destination.Slice(Http2Frame.HeaderLength), data);
        return Http2Frame.HeaderLength + 8;
    }

    /// <summary>A WINDOW_UPDATE of 1 to 2^31 - 1 bytes for a stream, or the connection with stream 0 (§6.9).</summary>
    public static int WriteWindowUpdate(Span<byte> destination, int streamId, int increment)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(increment);
        WriteHeader(destination, 4, Http2FrameType.WindowUpdate, 0, streamId);
        BinaryPrimitives.WriteUInt32BigEndian(destination.Slice(Http2Frame.HeaderLength), (uint)increment);
        return Http2Frame.HeaderLength + 4;
    }

    /// <summary>An RST_STREAM (§6.4).</summary>
    public static int WriteRstStream(Span<byte> destination, int streamId, Http2ErrorCode code)
    {
        WriteHeader(destination, 4, Http2FrameType.RstStream, 0, streamId);
        BinaryPrimitives.WriteUInt32BigEndian(destination.Slice(Http2Frame.HeaderLength), (uint)code);
        return Http2Frame.HeaderLength + 4;
    }

    /// <summary>A GOAWAY with the last stream processed, the code and debug data (§6.8).</summary>
    public static int WriteGoAway(Span<byte> destination, int lastStreamId, Http2ErrorCode code, ReadOnlySpan<byte> debugData)
    {
        WriteHeader(destination, 8 + debugData.Length, Http2FrameType.GoAway, 0, 0);
        BinaryPrimitives.WriteUInt32BigEndian(destination.Slice(Http2Frame.HeaderLength), (uint)lastStreamId & 0x7FFF_FFFF);
        BinaryPrimitives.WriteUInt32BigEndian(destination.Slice(Http2Frame.HeaderLength + 4), (uint)code);
        debugData.CopyTo(destination.Slice(Http2Frame.HeaderLength + 8));
        return Http2Frame.HeaderLength + 8 + debugData.Length;
    }
}
