using System.Buffers;
using System.Runtime.CompilerServices;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// HttpArena's upload profile: <c>POST /upload</c> reads the whole body as it arrives and answers how many bytes it read,
/// counted from the reads, never taken from Content-Length (the venue's rule). The body passes through one pooled
/// buffer, so a 20 MB upload holds 64 KiB here, and the connection's input is held to its read-buffer limit by the
/// transport: memory stays flat however many uploads run at once. Its limit is <c>HttpArena:MaxUploadSize</c>.
/// </summary>
internal static class Upload
{
    // Larger reads mean fewer trips through the body reader; 64 KiB still sits in the shared pool's per-core caches.
    private const int BufferSize = 64 * 1024;

    public static ReadOnlySpan<byte> Path => "/upload"u8;

    // Pooled: an upload waits for the client many times, and each wait would otherwise allocate its state machine.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public static async ValueTask CountAsync(RequestBody body, HttpResponse response)
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(BufferSize);
        long total = 0;
        try
        {
            int read;
            while ((read = await body.ReadAsync(buffer)) > 0)
            {
                total += read;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        Baseline.WriteNumber(response, total);
    }
}
