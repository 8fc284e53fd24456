namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>The frame opcodes of RFC 6455 §5.2; any other is refused with 1002.</summary>
internal enum WebSocketOpcode : byte
{
    Continuation = 0x0,
    Text = 0x1,
    Binary = 0x2,
    Close = 0x8,
    Ping = 0x9,
    Pong = 0xA,
}

/// <summary>Which close codes may travel in a close frame (RFC 6455 §7.4.1, §7.4.2, and IANA's registry).</summary>
internal static class WebSocketCloseCodes
{
    /// <summary>
    /// 1000-1003 and 1007-1014 (1012-1014 registered with IANA after the RFC), and 3000-4999 (libraries and
    /// applications). 1004 is reserved, 1005, 1006 and 1015 are never sent, the rest below 3000 are unassigned.
    /// </summary>
    public static bool IsSendable(int code) => code is (>= 1000 and <= 1003) or (>= 1007 and <= 1014) or (>= 3000 and <= 4999);
}
