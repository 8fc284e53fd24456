namespace PlatformBenchmarks.Http;

/// <summary>The request method. Methods outside RFC 9110's registered set parse as <see cref="Custom"/>.</summary>
public enum HttpMethod : byte
{
    Custom,
    Get,
    Head,
    Post,
    Put,
    Delete,
    Options,
    Patch,
    Trace,
    Connect,
}
