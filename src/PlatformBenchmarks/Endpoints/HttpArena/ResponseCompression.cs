using System.Buffers;
using System.IO.Compression;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// Sends a body in the content coding negotiated for it, compressed per request (the venue forbids stored compressed
/// answers). Every answer of a negotiated resource carries <c>Vary: Accept-Encoding</c>, the identity one included
/// (RFC 9110 §12.5.5), so a cache never hands one client's coding to another.
/// </summary>
internal static class ResponseCompression
{
    // The venue scores json-compressed by requests/s × (smallest body / our body)²; the levels are the best of those
    // measured by that score, in this server (docs/decisions/0003-httparena-json-and-compression.md). A window of 64 KiB
    // holds any of the venue's bodies whole.
    internal const int BrotliQuality = 3;
    internal const int BrotliWindow = 16;
    internal const int GzipLevel = 6;

    public static void Write(HttpResponse response, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ContentCoding coding)
    {
        if (coding == ContentCoding.Identity)
        {
            response.Write(HttpStatus.Ok, contentType, body, ContentCodingFields.For(ContentCoding.Identity));
            return;
        }

        byte[] compressed = ArrayPool<byte>.Shared.Rent(MaxCompressedLength(body.Length));
        try
        {
            int length = coding == ContentCoding.Brotli ? Brotli(body, compressed) : Gzip(body, compressed);
            response.Write(HttpStatus.Ok, contentType, compressed.AsSpan(0, length), ContentCodingFields.For(coding));
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(compressed);
        }
    }

    /// <summary>
    /// Room for either coding's output: Brotli's own bound, and for gzip deflate's worst case (stored blocks, 5 bytes per
    /// 16 KiB) plus the gzip header and trailer, with a margin.
    /// </summary>
    private static int MaxCompressedLength(int length) => Math.Max(BrotliEncoder.GetMaxCompressedLength(length), length + (length >> 10) + 256);

    internal static int Brotli(ReadOnlySpan<byte> body, Span<byte> destination)
    {
        if (!BrotliEncoder.TryCompress(body, destination, out int written, BrotliQuality, BrotliWindow))
        {
            throw new InvalidOperationException("Brotli output outgrew its own bound.");
        }

        return written;
    }

    internal static int Gzip(ReadOnlySpan<byte> body, byte[] destination)
    {
        // System.IO.Compression has no one-shot gzip: a stream per request over a fixed buffer, which cannot grow.
        using var output = new MemoryStream(destination, writable: true);
        using (var gzip = new GZipStream(output, new ZLibCompressionOptions { CompressionLevel = GzipLevel }, leaveOpen: true))
        {
            gzip.Write(body);
        }

        return (int)output.Position;
    }
}
