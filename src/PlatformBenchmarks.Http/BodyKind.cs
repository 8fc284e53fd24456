namespace PlatformBenchmarks.Http;

/// <summary>How a request's body is framed (RFC 9112 §6.3).</summary>
internal enum BodyKind : byte
{
    None,
    ContentLength,
    Chunked,
}
