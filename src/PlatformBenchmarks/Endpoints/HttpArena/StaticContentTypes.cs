namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The Content-Type of a static file, by its extension: the types of the venue's files (CSS, JavaScript, HTML, JSON,
/// SVG, WOFF2, WebP) and a few other common ones; anything else is <c>application/octet-stream</c> (RFC 9110 §8.3: a
/// sender that does not know the type may send that). JavaScript is <c>text/javascript</c> (RFC 9239 §6, which the
/// venue's check accepts as equal to application/javascript); text types carry their charset.
/// </summary>
internal static class StaticContentTypes
{
    private static readonly Dictionary<string, byte[]> s_byExtension = new(StringComparer.OrdinalIgnoreCase)
    {
        [".css"] = "text/css; charset=utf-8"u8.ToArray(),
        [".js"] = "text/javascript; charset=utf-8"u8.ToArray(),
        [".mjs"] = "text/javascript; charset=utf-8"u8.ToArray(),
        [".html"] = "text/html; charset=utf-8"u8.ToArray(),
        [".htm"] = "text/html; charset=utf-8"u8.ToArray(),
        [".json"] = "application/json"u8.ToArray(),
        [".svg"] = "image/svg+xml"u8.ToArray(),
        [".woff2"] = "font/woff2"u8.ToArray(),
        [".woff"] = "font/woff"u8.ToArray(),
        [".webp"] = "image/webp"u8.ToArray(),
        [".png"] = "image/png"u8.ToArray(),
        [".jpg"] = "image/jpeg"u8.ToArray(),
        [".jpeg"] = "image/jpeg"u8.ToArray(),
        [".gif"] = "image/gif"u8.ToArray(),
        [".ico"] = "image/x-icon"u8.ToArray(),
        [".txt"] = "text/plain; charset=utf-8"u8.ToArray(),
        [".xml"] = "application/xml"u8.ToArray(),
        [".wasm"] = "application/wasm"u8.ToArray(),
    };

    private static readonly byte[] s_unknown = "application/octet-stream"u8.ToArray();

    public static byte[] For(string name) => s_byExtension.GetValueOrDefault(Path.GetExtension(name), s_unknown);
}
