using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The system's libdeflate (<c>libdeflate.so.0</c>, Debian's and Ubuntu's <c>libdeflate0</c>), when it is installed: gzip
/// in one call over whole buffers, with a compressor that is allocated once and reused, where System.IO.Compression
/// offers gzip only as a stream with a fresh deflate state per body (docs/decisions/0003-httparena-json-and-compression.md).
/// </summary>
internal static partial class LibDeflate
{
    public const string Library = "libdeflate.so.0";

    private static readonly string? s_loadFailure = Probe();

    /// <summary>Whether the library loaded and exports what this binding calls.</summary>
    public static bool IsAvailable => s_loadFailure is null;

    /// <summary>Why the library cannot be used, for the banner and the refusal of <c>HttpArena:Gzip=LibDeflate</c>; null when it can.</summary>
    public static string? LoadFailure => s_loadFailure;

    private static string? Probe()
    {
        if (!NativeLibrary.TryLoad(Library, typeof(LibDeflate).Assembly, null, out nint library))
        {
            return $"{Library} could not be loaded (install libdeflate0)";
        }

        foreach (string name in (ReadOnlySpan<string>)["libdeflate_alloc_compressor", "libdeflate_gzip_compress", "libdeflate_gzip_compress_bound", "libdeflate_free_compressor"])
        {
            if (!NativeLibrary.TryGetExport(library, name, out _))
            {
                return $"{Library} has no {name}";
            }
        }

        // The library stays loaded for the process's life: the bindings below resolve their entry points in it.
        return null;
    }

    [LibraryImport(Library, EntryPoint = "libdeflate_alloc_compressor")]
    private static partial CompressorHandle AllocateCompressor(int level);

    [LibraryImport(Library, EntryPoint = "libdeflate_free_compressor")]
    private static partial void FreeCompressor(nint compressor);

    [LibraryImport(Library, EntryPoint = "libdeflate_gzip_compress")]
    private static partial nuint GzipCompress(CompressorHandle compressor, ReadOnlySpan<byte> input, nuint inputLength, Span<byte> output, nuint outputLength);

    [LibraryImport(Library, EntryPoint = "libdeflate_gzip_compress_bound")]
    private static partial nuint GzipCompressBound(CompressorHandle compressor, nuint inputLength);

    /// <summary>
    /// One libdeflate compressor at one level. Not safe for concurrent use: each thread keeps its own. A compressor whose
    /// thread ended is freed by the handle's finalizer, so thread-pool threads that come and go leak nothing.
    /// </summary>
    public sealed class GzipCompressor : IDisposable
    {
        private readonly CompressorHandle _handle;

        public GzipCompressor(int level)
        {
            if (!IsAvailable)
            {
                throw new InvalidOperationException(LoadFailure);
            }

            // libdeflate takes levels 0 to 12; it answers NULL for any other level and when it is out of memory.
            ArgumentOutOfRangeException.ThrowIfNegative(level);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(level, 12);
            _handle = AllocateCompressor(level);
            if (_handle.IsInvalid)
            {
                throw new InvalidOperationException($"libdeflate could not allocate a compressor at level {level} (out of memory).");
            }
        }

        /// <summary>The most bytes <see cref="Compress"/> can write for <paramref name="length"/> input bytes, header and trailer included.</summary>
        public int MaxCompressedLength(int length) => checked((int)GzipCompressBound(_handle, (nuint)length));

        /// <summary>Writes <paramref name="body"/> as one gzip member into <paramref name="destination"/>, returning its length.</summary>
        public int Compress(ReadOnlySpan<byte> body, Span<byte> destination)
        {
            nuint written = GzipCompress(_handle, body, (nuint)body.Length, destination, (nuint)destination.Length);

            // libdeflate answers 0 when the output does not fit; a destination of MaxCompressedLength always fits.
            return written == 0 ? ThrowDestinationTooSmall(body.Length, destination.Length, nameof(destination)) : (int)written;
        }

        public void Dispose() => _handle.Dispose();

        [System.Diagnostics.CodeAnalysis.DoesNotReturn]
        private static int ThrowDestinationTooSmall(int length, int room, string parameter)
            => throw new ArgumentException($"{room} bytes cannot hold the gzip of {length} bytes: give MaxCompressedLength.", parameter);
    }

    /// <summary>Owns a <c>libdeflate_compressor</c> and frees it once, when disposed or finalized.</summary>
    private sealed class CompressorHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        public CompressorHandle()
            : base(ownsHandle: true)
        {
        }

        protected override bool ReleaseHandle()
        {
            FreeCompressor(handle);
            return true;
        }
    }
}
