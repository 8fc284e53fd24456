using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>The content codings a response can be sent in (RFC 9110 §8.4.1).</summary>
internal enum ContentCoding : byte
{
    Identity,
    Gzip,
    Brotli,
}

/// <summary>
/// The fields of a response chosen by Accept-Encoding: its Content-Encoding, and Vary on every answer, the identity one
/// included, since the choice depends on that request field (RFC 9110 §12.5.5).
/// </summary>
internal static class ContentCodingFields
{
    private static readonly ResponseFields s_brotli = new(("Content-Encoding", "br"), ("Vary", "Accept-Encoding"));
    private static readonly ResponseFields s_gzip = new(("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding"));
    private static readonly ResponseFields s_identity = new(("Vary", "Accept-Encoding"));

    public static ResponseFields For(ContentCoding coding) => coding switch
    {
        ContentCoding.Brotli => s_brotli,
        ContentCoding.Gzip => s_gzip,
        _ => s_identity,
    };
}
