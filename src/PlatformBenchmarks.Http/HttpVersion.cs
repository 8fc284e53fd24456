namespace PlatformBenchmarks.Http;

/// <summary>The HTTP versions this server speaks; any other version is answered with 505.</summary>
public enum HttpVersion : byte
{
    Http10,
    Http11,
    Http2,
}
