using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport.IoUring;

/// <summary>
/// Receive buffers the kernel picks from when data arrives (a registered ring of provided buffers, group 0), rather
/// than memory named by each receive. A waiting receive then holds no memory at all, and memory the kernel may still
/// write into never belongs to a pipe: when a connection closes with a receive in flight, the late completion only
/// returns its buffer here. The price is one copy of what was received into the connection's input pipe, a few
/// hundred bytes for a request.
///
/// Memory: the pointers point into two native allocations this object owns from its construction to
/// <see cref="Dispose"/>, the ring of entries and the buffers. The kernel reads and writes them while the ring is
/// registered, so Dispose unregisters it before freeing them; a span from <see cref="Get"/> is valid until its buffer is
/// given back with <see cref="Return"/>.
/// </summary>
internal sealed class ProvidedBufferRing : IDisposable
{
    public const ushort GroupId = 0;

    private readonly Ring _ring;
    private readonly unsafe Libc.ProvidedBuffer* _entries;
    private readonly unsafe byte* _memory;
    private readonly ushort _mask;
    private ushort _tail;
    private bool _registered;

    private unsafe ProvidedBufferRing(Ring ring, int count, int size)
    {
        _ring = ring;
        Count = count;
        BufferSize = size;
        _mask = (ushort)(count - 1);
        _entries = (Libc.ProvidedBuffer*)NativeMemory.AlignedAlloc((nuint)(count * sizeof(Libc.ProvidedBuffer)), 4096);
        NativeMemory.Clear(_entries, (nuint)(count * sizeof(Libc.ProvidedBuffer)));
        _memory = (byte*)NativeMemory.AlignedAlloc((nuint)count * (nuint)size, 4096);
    }

    public int Count { get; }

    public int BufferSize { get; }

    /// <summary>Registers <paramref name="count"/> (a power of two) buffers of <paramref name="size"/> bytes; null with the negative errno if the kernel refuses.</summary>
    public static unsafe ProvidedBufferRing? Create(Ring ring, int count, int size, out int error)
    {
        var buffers = new ProvidedBufferRing(ring, count, size);
        Libc.BufferRingRegistration registration = default;
        registration.RingAddress = (ulong)buffers._entries;
        registration.RingEntries = (uint)count;
        registration.GroupId = GroupId;
        if (Libc.IoUringRegister(ring.Fd, Libc.IORING_REGISTER_PBUF_RING, &registration, 1) < 0)
        {
            error = Libc.LastError;
            buffers.Dispose();
            return null;
        }

        buffers._registered = true;
        for (int i = 0; i < count; i++)
        {
            buffers.Add((ushort)i);
        }

        buffers.Publish();
        error = 0;
        return buffers;
    }

    /// <summary>The bytes a completion received into buffer <paramref name="id"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public unsafe ReadOnlySpan<byte> Get(ushort id, int length) => new(_memory + ((nuint)id * (nuint)BufferSize), length);

    /// <summary>Gives buffer <paramref name="id"/> back to the kernel once its bytes are copied out.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Return(ushort id)
    {
        Add(id);
        Publish();
    }

    public unsafe void Dispose()
    {
        if (_registered)
        {
            Libc.BufferRingRegistration registration = default;
            registration.GroupId = GroupId;
            _ = Libc.IoUringRegister(_ring.Fd, Libc.IORING_UNREGISTER_PBUF_RING, &registration, 1);
            _registered = false;
        }

        NativeMemory.AlignedFree(_entries);
        NativeMemory.AlignedFree(_memory);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private unsafe void Add(ushort id)
    {
        Libc.ProvidedBuffer* entry = _entries + (_tail & _mask);
        entry->Address = (ulong)(_memory + ((nuint)id * (nuint)BufferSize));
        entry->Length = (uint)BufferSize;
        entry->BufferId = id;
        _tail++;
    }

    // The ring's tail is the reserved field of entry 0 (struct io_uring_buf_ring); the store releases the entries above.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private unsafe void Publish() => Volatile.Write(ref _entries->Reserved, _tail);
}
