using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// Fixed-size blocks carved from slabs on the pinned object heap, so a block's address can go to recv(2) or into an
/// iovec without pinning it per call, and the GC never moves it. Blocks come back through the pipes that rent them
/// (the reader's AdvanceTo); the pool only grows, by one slab at a time, when none is free. One pool per loop thread:
/// its connections' pipes rent from it on that thread, so the free list is touched across threads only by returns
/// from work that finished elsewhere.
/// </summary>
internal sealed class PinnedBlockMemoryPool : MemoryPool<byte>
{
    /// <summary>4 KiB, as Kestrel's pool: a plaintext or json request and its response each fit in one block.</summary>
    public const int BlockSize = 4096;

    private const int BlocksPerSlab = 32;

    /// <summary>128 KiB: what the pool grows by.</summary>
    public const int SlabSize = BlockSize * BlocksPerSlab;

    private readonly ConcurrentQueue<PinnedBlock> _free = new();
    private readonly List<byte[]> _slabs = [];
    private readonly Lock _growLock = new();
    private int _earlyReturns;

    public override int MaxBufferSize => BlockSize;

    /// <summary>Slabs allocated so far: the pool's whole footprint is this times <see cref="SlabSize"/> (reported by <see cref="TransportMetrics"/>).</summary>
    internal int SlabCount
    {
        get
        {
            lock (_growLock)
            {
                return _slabs.Count;
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        if (minBufferSize > BlockSize)
        {
            ThrowTooLarge(minBufferSize);
        }

        return _free.TryDequeue(out PinnedBlock? block) ? block : Grow();
    }

    /// <summary>
    /// Blocks given back while the kernel still held them for a send: each is kept off the free list until the send's
    /// completion is reaped. Always 0 unless the transport breaks its rule: <see cref="TransportMetrics"/> reports it.
    /// </summary>
    internal int EarlyReturns => Volatile.Read(ref _earlyReturns);

    internal void Return(PinnedBlock block) => _free.Enqueue(block);

    [MethodImpl(MethodImplOptions.NoInlining)]
    internal void NoteEarlyReturn() => Interlocked.Increment(ref _earlyReturns);

    protected override void Dispose(bool disposing)
    {
        // Blocks still rented by live pipes stay valid: their slabs are ordinary (pinned) arrays the GC frees once
        // nothing refers to them.
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private unsafe PinnedBlock Grow()
    {
        byte[] slab = GC.AllocateUninitializedArray<byte>(SlabSize, pinned: true);
        byte* start = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(slab));
        lock (_growLock)
        {
            _slabs.Add(slab);
        }

        for (int i = 1; i < BlocksPerSlab; i++)
        {
            _free.Enqueue(new PinnedBlock(this, slab, start + (i * BlockSize)));
        }

        return new PinnedBlock(this, slab, start);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowTooLarge(int size) =>
        throw new ArgumentOutOfRangeException(nameof(size), size, $"Blocks are {BlockSize} bytes.");
}

/// <summary>
/// One block of a pinned slab. A <see cref="MemoryManager{T}"/> so the transport can recover its address from any
/// <see cref="Memory{T}"/> the pipes hand back (<see cref="MemoryMarshal.TryGetMemoryManager{T, TManager}(ReadOnlyMemory{T}, out TManager?, out int, out int)"/>)
/// and pass it to the kernel without a pin.
///
/// Memory: <see cref="Pointer"/> points into the block's slab, an array on the pinned object heap that the block keeps
/// alive, so it stays valid and in place for as long as the block is referenced.
/// </summary>
internal sealed class PinnedBlock : MemoryManager<byte>
{
    private readonly PinnedBlockMemoryPool _pool;

    // Keeps the slab (and so this block's memory) alive while the block is in use.
    private readonly byte[] _slab;
    private bool _lent;
    private bool _returnDeferred;

    public unsafe PinnedBlock(PinnedBlockMemoryPool pool, byte[] slab, byte* pointer)
    {
        _pool = pool;
        _slab = slab;
        Pointer = pointer;
    }

    public unsafe byte* Pointer { get; }

    public override unsafe Span<byte> GetSpan() => new(Pointer, PinnedBlockMemoryPool.BlockSize);

    // The slab is on the pinned object heap: nothing to pin.
    public override unsafe MemoryHandle Pin(int elementIndex = 0) => new(Pointer + elementIndex);

    public override void Unpin()
    {
    }

    protected override unsafe bool TryGetArray(out ArraySegment<byte> segment)
    {
        segment = new ArraySegment<byte>(_slab, (int)(Pointer - (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_slab))), PinnedBlockMemoryPool.BlockSize);
        return true;
    }

    /// <summary>The kernel was given this block's address for a send (io_uring); loop thread only.</summary>
    internal void LendToKernel() => _lent = true;

    /// <summary>That send's completion was reaped: a return that came in the meantime is carried out now.</summary>
    internal void ReturnFromKernel()
    {
        _lent = false;
        if (_returnDeferred)
        {
            _returnDeferred = false;
            _pool.Return(this);
        }
    }

    // IMemoryOwner<byte>.Dispose: the pipe is done with the block. Memory handed to the kernel is the kernel's until
    // its completion is reaped, so a block still lent is not reused before then: another connection would write its
    // response into bytes the kernel may still be sending. Blocks are lent and given back by the same loop thread.
    protected override void Dispose(bool disposing)
    {
        if (_lent)
        {
            _returnDeferred = true;
            _pool.NoteEarlyReturn();
            return;
        }

        _pool.Return(this);
    }
}
