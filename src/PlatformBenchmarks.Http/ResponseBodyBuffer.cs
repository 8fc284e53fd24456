using System.Buffers;
using System.Text.Json;
using Microsoft.Extensions.ObjectPool;

namespace PlatformBenchmarks.Http;

/// <summary>
/// A buffer for bodies whose length is known only once they are written, and the JSON writer over it, lent to one
/// connection at a time. A connection takes one for its first such body and gives it back when it ends, so clients that
/// reconnect often (HttpArena's profiles open a new connection every 10 to 25 requests) do not cost an allocated and
/// regrown buffer per connection (docs/decisions/0008-measured-code-choices.md).
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The JSON writer holds only managed buffers; nothing needs disposing.")]
internal sealed class ResponseBodyBuffer
{
    private const int InitialCapacity = 4096;

    // A buffer that grew for an unusually large body goes to the GC rather than back to the pool.
    private const int LargestKept = 64 * 1024;

    // Before the pool, which is made with it: static initializers run in the order they are written.
    private static readonly Policy s_policy = new();

    // One pool for the process, not one per thread: Kestrel starts a connection on a thread-pool thread, where its first
    // body is written, and the connection ends on its loop's thread.
    private static readonly ObjectPool<ResponseBodyBuffer> s_pool = new DefaultObjectPool<ResponseBodyBuffer>(s_policy, maximumRetained: 1024);

    private Utf8JsonWriter? _json;

    private ResponseBodyBuffer()
    {
    }

    /// <summary>What was written since <see cref="Start"/> or <see cref="StartJson"/>, the JSON writer's pending bytes included.</summary>
    public ReadOnlySpan<byte> Written
    {
        get
        {
            _json?.Flush();
            return Body.WrittenSpan;
        }
    }

    private ArrayBufferWriter<byte> Body { get; } = new(InitialCapacity);

    /// <summary>How the pool makes buffers and which it takes back.</summary>
    internal static IPooledObjectPolicy<ResponseBodyBuffer> PoolPolicy => s_policy;

    /// <summary>A buffer from the pool, or a new one.</summary>
    public static ResponseBodyBuffer Rent() => s_pool.Get();

    /// <summary>
    /// Puts <paramref name="buffer"/> back in the pool; its owner must not touch it again. Its old bytes stay in the array,
    /// but the next owner sees only what it writes after <see cref="Start"/>.
    /// </summary>
    public static void Return(ResponseBodyBuffer buffer) => s_pool.Return(buffer);

    /// <summary>Empties the buffer for a new body, dropping anything the JSON writer still held.</summary>
    public IBufferWriter<byte> Start()
    {
        Body.ResetWrittenCount();
        _json?.Reset();
        return Body;
    }

    /// <summary>Empties the buffer and returns the JSON writer over it.</summary>
    public Utf8JsonWriter StartJson()
    {
        IBufferWriter<byte> body = Start();

        // The serializer only writes well-formed JSON; the writer's own validation would check it a second time.
        return _json ??= new Utf8JsonWriter(body, new JsonWriterOptions { SkipValidation = true });
    }

    private sealed class Policy : IPooledObjectPolicy<ResponseBodyBuffer>
    {
        public ResponseBodyBuffer Create() => new();

        public bool Return(ResponseBodyBuffer obj) => obj.Body.Capacity <= LargestKept;
    }
}
