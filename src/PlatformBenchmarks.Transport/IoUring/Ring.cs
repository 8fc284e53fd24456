using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport.IoUring;

/// <summary>
/// One io_uring instance and its shared rings, for one thread. Submission entries are prepared in place and handed to
/// the kernel by the next <see cref="SubmitAndWait"/>; completions are read in place by <see cref="TryPeek"/>.
///
/// Set-up flags, each for a measured or documented reason: SINGLE_ISSUER and DEFER_TASKRUN (one thread submits; the
/// kernel runs completion work only when that thread enters, instead of interrupting it), SUBMIT_ALL (one bad entry
/// does not stall the rest), CQSIZE (room for every connection's receive, send and cancel at once), and R_DISABLED:
/// the ring is made on the thread that binds, so that failures surface there, and enabled by the loop thread, which
/// becomes its only submitter.
///
/// Memory: every pointer here points into the two regions the kernel shares with this process (the rings, and the
/// submission entries), mapped by <see cref="Create"/> and unmapped by <see cref="Dispose"/>, and is used only in
/// between, on the thread that owns the ring.
/// </summary>
internal sealed class Ring : IDisposable
{
    private const uint SetupFlags = Libc.IORING_SETUP_SINGLE_ISSUER | Libc.IORING_SETUP_DEFER_TASKRUN | Libc.IORING_SETUP_SUBMIT_ALL
        | Libc.IORING_SETUP_CQSIZE | Libc.IORING_SETUP_R_DISABLED;

    private readonly unsafe byte* _rings;
    private readonly nuint _ringsSize;
    private readonly unsafe Libc.SubmissionEntry* _entries;
    private readonly nuint _entriesSize;
    private readonly unsafe uint* _sqHead;
    private readonly unsafe uint* _sqTail;
    private readonly uint _sqMask;
    private readonly uint _sqCapacity;
    private readonly unsafe uint* _cqHead;
    private readonly unsafe uint* _cqTail;
    private readonly uint _cqMask;
    private readonly unsafe Libc.CompletionEntry* _completions;

    // Entries prepared but not yet published to the kernel start at the published tail.
    private uint _tail;

    private unsafe Ring(int fd, in Libc.IoUringParams parameters, byte* rings, nuint ringsSize, Libc.SubmissionEntry* entries, nuint entriesSize)
    {
        Fd = fd;
        _rings = rings;
        _ringsSize = ringsSize;
        _entries = entries;
        _entriesSize = entriesSize;
        _sqHead = (uint*)(rings + parameters.SqOffsets.Head);
        _sqTail = (uint*)(rings + parameters.SqOffsets.Tail);
        _sqMask = *(uint*)(rings + parameters.SqOffsets.RingMask);
        _sqCapacity = *(uint*)(rings + parameters.SqOffsets.RingEntries);
        _cqHead = (uint*)(rings + parameters.CqOffsets.Head);
        _cqTail = (uint*)(rings + parameters.CqOffsets.Tail);
        _cqMask = *(uint*)(rings + parameters.CqOffsets.RingMask);
        _completions = (Libc.CompletionEntry*)(rings + parameters.CqOffsets.Cqes);
        _tail = *_sqTail;

        // Entry i of the submission array always names submission entry i: set once, never touched again.
        uint* array = (uint*)(rings + parameters.SqOffsets.Array);
        for (uint i = 0; i < _sqCapacity; i++)
        {
            array[i] = i;
        }
    }

    public int Fd { get; private set; }

    /// <summary>
    /// Makes a ring, or returns null with the negative errno (ENOSYS: no io_uring; EPERM: forbidden, as under Docker's
    /// default seccomp profile; EINVAL: a kernel too old for the flags).
    /// </summary>
    public static unsafe Ring? Create(uint submissionEntries, uint completionEntries, out int error)
    {
        Libc.IoUringParams parameters = default;
        parameters.Flags = SetupFlags;
        parameters.CqEntries = completionEntries;
        int fd = Libc.IoUringSetup(submissionEntries, &parameters);
        if (fd < 0)
        {
            error = Libc.LastError;
            return null;
        }

        // One mapping for both rings (FEAT_SINGLE_MMAP), and overflowing completions kept rather than dropped
        // (FEAT_NODROP): both since 5.5, older than any kernel that accepts the flags above.
        const uint Needed = Libc.IORING_FEAT_SINGLE_MMAP | Libc.IORING_FEAT_NODROP;
        if ((parameters.Features & Needed) != Needed)
        {
            _ = Libc.Close(fd);
            error = -Libc.ENOSYS;
            return null;
        }

        nuint sqSize = parameters.SqOffsets.Array + (parameters.SqEntries * sizeof(uint));
        nuint cqSize = parameters.CqOffsets.Cqes + (parameters.CqEntries * (uint)sizeof(Libc.CompletionEntry));
        nuint ringsSize = Math.Max(sqSize, cqSize);
        const int Protection = Libc.PROT_READ | Libc.PROT_WRITE;
        const int Flags = Libc.MAP_SHARED | Libc.MAP_POPULATE;
        byte* rings = (byte*)Libc.MemoryMap(null, ringsSize, Protection, Flags, fd, Libc.IORING_OFF_SQ_RING);
        if (rings == Libc.MapFailed)
        {
            error = Libc.LastError;
            _ = Libc.Close(fd);
            return null;
        }

        nuint entriesSize = parameters.SqEntries * (uint)sizeof(Libc.SubmissionEntry);
        var entries = (Libc.SubmissionEntry*)Libc.MemoryMap(null, entriesSize, Protection, Flags, fd, Libc.IORING_OFF_SQES);
        if (entries == Libc.MapFailed)
        {
            error = Libc.LastError;
            _ = Libc.MemoryUnmap(rings, ringsSize);
            _ = Libc.Close(fd);
            return null;
        }

        error = 0;
        return new Ring(fd, in parameters, rings, ringsSize, entries, entriesSize);
    }

    /// <summary>Makes the calling thread the ring's only submitter. Returns 0 or a negative errno.</summary>
    public unsafe int Enable() => Libc.IoUringRegister(Fd, Libc.IORING_REGISTER_ENABLE_RINGS, null, 0) < 0 ? Libc.LastError : 0;

    /// <summary>
    /// A cleared entry to fill in, published by the next submission. When the submission ring is full, what is
    /// prepared is submitted first (without waiting), so preparing never fails.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public unsafe Libc.SubmissionEntry* Next()
    {
        if (_tail - Volatile.Read(ref *_sqHead) >= _sqCapacity)
        {
            SubmitWhenFull();
        }

        Libc.SubmissionEntry* entry = _entries + (_tail & _sqMask);
        *entry = default;
        _tail++;
        return entry;
    }

    /// <summary>
    /// Submits what was prepared and, with <paramref name="minComplete"/> above 0, waits until that many completions
    /// are ready. GETEVENTS always: under DEFER_TASKRUN that is what runs the kernel's completion work, and it also
    /// moves completions that overflowed the ring back into it. Returns 0 or a negative errno (EINTR: a signal;
    /// EBUSY: completions must be reaped before more can be submitted).
    /// </summary>
    public unsafe int SubmitAndWait(uint minComplete)
    {
        Volatile.Write(ref *_sqTail, _tail);
        uint toSubmit = _tail - Volatile.Read(ref *_sqHead);
        return Libc.IoUringEnter(Fd, toSubmit, minComplete, Libc.IORING_ENTER_GETEVENTS) < 0 ? Libc.LastError : 0;
    }

    /// <summary>As <see cref="SubmitAndWait(uint)"/> for one completion, but gives up after <paramref name="timeout"/> (-ETIME).</summary>
    public unsafe int SubmitAndWait(TimeSpan timeout)
    {
        Volatile.Write(ref *_sqTail, _tail);
        uint toSubmit = _tail - Volatile.Read(ref *_sqHead);
        Libc.TimeSpec time = new() { Seconds = (long)timeout.TotalSeconds, Nanoseconds = timeout.Milliseconds * 1_000_000L };
        Libc.GetEventsArgument argument = new() { Timeout = (ulong)&time };
        return Libc.IoUringEnter(Fd, toSubmit, 1, Libc.IORING_ENTER_GETEVENTS | Libc.IORING_ENTER_EXT_ARG, &argument) < 0 ? Libc.LastError : 0;
    }

    /// <summary>The next completion, if one is ready; <see cref="Advance"/> releases it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public unsafe bool TryPeek(out Libc.CompletionEntry completion)
    {
        uint head = *_cqHead;
        if (head == Volatile.Read(ref *_cqTail))
        {
            completion = default;
            return false;
        }

        completion = _completions[head & _cqMask];
        return true;
    }

    /// <summary>Gives the slot of the completion just peeked back to the kernel.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public unsafe void Advance() => Volatile.Write(ref *_cqHead, *_cqHead + 1);

    public unsafe void Dispose()
    {
        if (Fd < 0)
        {
            return;
        }

        _ = Libc.MemoryUnmap(_entries, _entriesSize);
        _ = Libc.MemoryUnmap(_rings, _ringsSize);
        _ = Libc.Close(Fd);
        Fd = -1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private unsafe void SubmitWhenFull()
    {
        // Rare: more than a ring's worth of work in one turn. The kernel takes every entry (SUBMIT_ALL) unless
        // completions are backed up (EBUSY), which cannot last: the loop reaps all of them every turn.
        int result;
        do
        {
            result = SubmitAndWait(0);
        }
        while (result == -Libc.EINTR);

        if (_tail - Volatile.Read(ref *_sqHead) >= _sqCapacity)
        {
            throw new InvalidOperationException($"io_uring submission ring stays full (errno {-result}).");
        }
    }
}
