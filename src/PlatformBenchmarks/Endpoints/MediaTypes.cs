namespace PlatformBenchmarks.Endpoints;

/// <summary>The Content-Type values more than one module sends.</summary>
internal static class MediaTypes
{
    public static ReadOnlySpan<byte> Json => "application/json"u8;
}
