namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>The content codings a response can be sent in (RFC 9110 §8.4.1).</summary>
internal enum ContentCoding : byte
{
    Identity,
    Gzip,
    Brotli,
}

/// <summary>
/// The header field lines of a response chosen by Accept-Encoding: its Content-Encoding, and Vary on every answer, the
/// identity one included, since the choice depends on that request field (RFC 9110 §12.5.5).
/// </summary>
internal static class ContentCodingFields
{
    public static ReadOnlySpan<byte> For(ContentCoding coding) => coding switch
    {
        ContentCoding.Brotli => "Content-Encoding: br\r\nVary: Accept-Encoding\r\n"u8,
        ContentCoding.Gzip => "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n"u8,
        _ => "Vary: Accept-Encoding\r\n"u8,
    };
}
