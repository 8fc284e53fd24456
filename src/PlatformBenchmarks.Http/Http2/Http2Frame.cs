namespace PlatformBenchmarks.Http.Http2;

/// <summary>The frame types of RFC 9113 §6; any other value is an extension frame, which a receiver ignores (§4.1, §5.5).</summary>
internal enum Http2FrameType : byte
{
    Data = 0x0,
    Headers = 0x1,
    Priority = 0x2,
    RstStream = 0x3,
    Settings = 0x4,
    PushPromise = 0x5,
    Ping = 0x6,
    GoAway = 0x7,
    WindowUpdate = 0x8,
    Continuation = 0x9,
}

/// <summary>The frame flags of RFC 9113 §6, by bit; each means something only on the types that define it.</summary>
internal static class Http2FrameFlags
{
    /// <summary>DATA, HEADERS: the last frame the sender sends on the stream.</summary>
    public const byte EndStream = 0x1;

    /// <summary>SETTINGS, PING: an acknowledgement.</summary>
    public const byte Ack = 0x1;

    /// <summary>HEADERS, CONTINUATION: the field block ends with this frame.</summary>
    public const byte EndHeaders = 0x4;

    /// <summary>DATA, HEADERS: a pad length byte, and that many bytes of padding.</summary>
    public const byte Padded = 0x8;

    /// <summary>HEADERS: a stream dependency and weight (deprecated, §5.3.2) before the field block.</summary>
    public const byte Priority = 0x20;
}

/// <summary>The error codes of RFC 9113 §7.</summary>
internal enum Http2ErrorCode : uint
{
    NoError = 0x0,
    ProtocolError = 0x1,
    InternalError = 0x2,
    FlowControlError = 0x3,
    SettingsTimeout = 0x4,
    StreamClosed = 0x5,
    FrameSizeError = 0x6,
    RefusedStream = 0x7,
    Cancel = 0x8,
    CompressionError = 0x9,
    ConnectError = 0xA,
    EnhanceYourCalm = 0xB,
    InadequateSecurity = 0xC,
    Http11Required = 0xD,
}

/// <summary>The settings of RFC 9113 §6.5.2.</summary>
internal enum Http2SettingsParameter : ushort
{
    HeaderTableSize = 0x1,
    EnablePush = 0x2,
    MaxConcurrentStreams = 0x3,
    InitialWindowSize = 0x4,
    MaxFrameSize = 0x5,
    MaxHeaderListSize = 0x6,
}

/// <summary>
/// One frame as <see cref="Http2FrameReader"/> read it: the 9-byte header (§4.1), and what the type's fixed fields
/// hold. The frame's content (a DATA frame's data, a HEADERS frame's field block fragment, without padding or priority)
/// is handed beside it as a slice of the input.
/// </summary>
internal struct Http2Frame
{
    public const int HeaderLength = 9;

    /// <summary>The initial SETTINGS_MAX_FRAME_SIZE, and its least value (§6.5.2).</summary>
    public const int DefaultMaxFrameSize = 16_384;

    /// <summary>The largest SETTINGS_MAX_FRAME_SIZE allowed (§6.5.2): 2^24 - 1.</summary>
    public const int MaxAllowedFrameSize = 16_777_215;

    /// <summary>The largest flow-control window (§6.9.1): 2^31 - 1.</summary>
    public const int MaxWindowSize = int.MaxValue;

    public Http2FrameType Type;
    public byte Flags;

    /// <summary>The stream identifier, its reserved bit cleared (§4.1).</summary>
    public int StreamId;

    /// <summary>The payload's length as the header gives it.</summary>
    public int PayloadLength;

    /// <summary>DATA: the bytes that count against flow control, the whole payload padding included (§6.9).</summary>
    public readonly int FlowControlledLength => PayloadLength;

    /// <summary>HEADERS with PRIORITY, PRIORITY: the stream this one depends on (read and ignored, §5.3.2).</summary>
    public int StreamDependency;

    /// <summary>RST_STREAM, GOAWAY: the error code.</summary>
    public Http2ErrorCode ErrorCode;

    /// <summary>GOAWAY: the last stream the sender may have processed.</summary>
    public int LastStreamId;

    /// <summary>WINDOW_UPDATE: the increment, 1 to 2^31 - 1.</summary>
    public int WindowIncrement;

    /// <summary>PING: the 8 opaque bytes, in network order as one number.</summary>
    public ulong PingData;

    /// <summary>The frame's whole length, header and payload: what the reader consumed.</summary>
    public readonly int TotalLength => HeaderLength + PayloadLength;

    public readonly bool HasFlag(byte flag) => (Flags & flag) != 0;

    public readonly bool EndStream => (Flags & Http2FrameFlags.EndStream) != 0;

    public readonly bool EndHeaders => (Flags & Http2FrameFlags.EndHeaders) != 0;

    public readonly bool IsAck => (Flags & Http2FrameFlags.Ack) != 0;
}

/// <summary>
/// A frame that breaks RFC 9113: its error code, and whether it ends the connection (GOAWAY, §5.4.1) or only its stream
/// (RST_STREAM, §5.4.2), with a short reason a GOAWAY may carry as debug data.
/// </summary>
internal readonly record struct Http2FrameError(Http2ErrorCode Code, bool IsConnectionError, string Reason)
{
    public static Http2FrameError Connection(Http2ErrorCode code, string reason) => new(code, true, reason);

    public static Http2FrameError Stream(Http2ErrorCode code, string reason) => new(code, false, reason);
}
