using System.Buffers;
using System.IO.Compression;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>The library that writes gzip bodies (<c>HttpArena:Gzip</c>).</summary>
internal enum GzipLibrary
{
    /// <summary>libdeflate when the system has it, System.IO.Compression otherwise; the banner says which.</summary>
    Auto,

    /// <summary>libdeflate, and the server refuses to start without it.</summary>
    LibDeflate,

    /// <summary>System.IO.Compression's <see cref="GZipStream"/>.</summary>
    Runtime,
}

/// <summary>
/// Sends a body in the content coding negotiated for it, compressed per request (the venue forbids stored compressed
/// answers). Every answer of a negotiated resource carries <c>Vary: Accept-Encoding</c>, the identity one included
/// (RFC 9110 §12.5.5), so a cache never hands one client's coding to another. One instance serves every connection.
/// </summary>
internal sealed class ResponseCompression
{
    // The venue scores json-compressed by requests/s × (smallest body / our body)²; the levels are the best of those
    // measured by that score, in this server (docs/decisions/0003-httparena-json-and-compression.md). A window of 64 KiB
    // holds any of the venue's bodies whole.
    internal const int BrotliQuality = 3;
    internal const int BrotliWindow = 16;
    internal const int RuntimeGzipLevel = 6;
    internal const int LibDeflateGzipLevel = 5;

    // A libdeflate compressor serves one call at a time; each thread that compresses keeps one.
    [ThreadStatic]
    private static LibDeflate.GzipCompressor? t_libDeflate;

    public ResponseCompression(GzipLibrary library)
    {
        Gzip = library switch
        {
            GzipLibrary.Runtime => GzipLibrary.Runtime,
            GzipLibrary.LibDeflate when !LibDeflate.IsAvailable => throw new InvalidOperationException($"HttpArena:Gzip is LibDeflate, but {LibDeflate.LoadFailure}."),
            _ => LibDeflate.IsAvailable ? GzipLibrary.LibDeflate : GzipLibrary.Runtime,
        };
        Description = Gzip == GzipLibrary.LibDeflate
            ? $"gzip level {LibDeflateGzipLevel} by libdeflate ({LibDeflate.Library}), Brotli quality {BrotliQuality} by System.IO.Compression"
            : $"gzip level {RuntimeGzipLevel} and Brotli quality {BrotliQuality} by System.IO.Compression{(library == GzipLibrary.Auto ? $" ({LibDeflate.LoadFailure})" : string.Empty)}";
    }

    /// <summary>libdeflate when it loads, as a server without <c>HttpArena:Gzip</c> has it.</summary>
    public static ResponseCompression Default { get; } = new(GzipLibrary.Auto);

    /// <summary>The library that writes gzip here: <see cref="GzipLibrary.LibDeflate"/> or <see cref="GzipLibrary.Runtime"/>.</summary>
    public GzipLibrary Gzip { get; }

    /// <summary>What compresses, for the banner.</summary>
    public string Description { get; }

    public void Write(HttpResponse response, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ContentCoding coding)
    {
        if (coding == ContentCoding.Identity)
        {
            response.Write(HttpStatus.Ok, contentType, body, ContentCodingFields.For(ContentCoding.Identity));
            return;
        }

        byte[] compressed = ArrayPool<byte>.Shared.Rent(MaxCompressedLength(coding, body.Length));
        try
        {
            int length = coding == ContentCoding.Brotli ? Brotli(body, compressed) : GzipTo(body, compressed);
            response.Write(HttpStatus.Ok, contentType, compressed.AsSpan(0, length), ContentCodingFields.For(coding));
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(compressed);
        }
    }

    /// <summary>Room for <paramref name="coding"/>'s output of <paramref name="length"/> bytes, by each library's own bound.</summary>
    internal int MaxCompressedLength(ContentCoding coding, int length) => coding switch
    {
        ContentCoding.Brotli => BrotliEncoder.GetMaxCompressedLength(length),
        _ when Gzip == GzipLibrary.LibDeflate => LibDeflateCompressor.MaxCompressedLength(length),
        _ => RuntimeGzipBound(length),
    };

    /// <summary>Writes <paramref name="body"/> as gzip into <paramref name="destination"/> (at least <see cref="MaxCompressedLength"/> long).</summary>
    internal int GzipTo(ReadOnlySpan<byte> body, byte[] destination)
        => Gzip == GzipLibrary.LibDeflate ? LibDeflateCompressor.Compress(body, destination) : RuntimeGzip(body, destination);

    internal static int Brotli(ReadOnlySpan<byte> body, Span<byte> destination)
    {
        if (!BrotliEncoder.TryCompress(body, destination, out int written, BrotliQuality, BrotliWindow))
        {
            throw new InvalidOperationException("Brotli output outgrew its own bound.");
        }

        return written;
    }

    private static LibDeflate.GzipCompressor LibDeflateCompressor => t_libDeflate ??= new LibDeflate.GzipCompressor(LibDeflateGzipLevel);

    /// <summary>deflate's worst case (stored blocks, 5 bytes per 16 KiB) plus the gzip header and trailer, with a margin.</summary>
    private static int RuntimeGzipBound(int length) => length + (length >> 10) + 256;

    private static int RuntimeGzip(ReadOnlySpan<byte> body, byte[] destination)
    {
        // System.IO.Compression has no one-shot gzip: a stream per request over a fixed buffer, which cannot grow.
        using var output = new MemoryStream(destination, writable: true);
        using (var gzip = new GZipStream(output, new ZLibCompressionOptions { CompressionLevel = RuntimeGzipLevel }, leaveOpen: true))
        {
            gzip.Write(body);
        }

        return (int)output.Position;
    }
}
