using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>TFB plaintext test: <c>Hello, World!</c> as text/plain.</summary>
internal static class Plaintext
{
    // TFB plaintext rules allow reusing one buffer for the body text; the headers are composed per response.
    private static ReadOnlySpan<byte> Body => "Hello, World!"u8;

    private static ReadOnlySpan<byte> ContentType => "text/plain"u8;

    public static void Write(HttpResponse response) => response.Write(HttpStatus.Ok, ContentType, Body);
}
