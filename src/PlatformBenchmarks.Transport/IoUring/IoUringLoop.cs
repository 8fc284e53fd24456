using System.Buffers;
using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport.IoUring;

/// <summary>
/// The io_uring kind of <see cref="TransportLoop"/>: one ring per thread. The listener has a few accepts in flight, each
/// armed again as it completes (not multishot: out of descriptors, the kernel retries a multishot accept at once for as
/// long as a connection waits in the backlog, and floods the completion queue before the loop can stop it). Each
/// connection has one multishot receive armed while it wants input (the kernel completes it into a buffer it picks
/// from <see cref="ProvidedBufferRing"/> each time data arrives, with no re-arming) and at most one send in flight; a
/// read of an eventfd wakes the loop for work queued from other threads. Everything prepared in a turn (the sends of
/// every response written, cancels) goes to the kernel in the one io_uring_enter that also waits for the next
/// completions, so steady state costs a fraction of a system call per request rather than the receive and send of a
/// readiness loop.
///
/// Memory: the wake-up counter, the armed accepts' peer addresses and each slot's msghdr are native memory the loop
/// allocates and frees. The addresses a send gives the kernel are of pool blocks (pinned for the pool's life, marked
/// lent) or of foreign memory pinned by the slot, and the slot holds them until that send's completion is reaped.
/// <see cref="ReleaseResources"/> frees nothing while an operation is in flight: the kernel may still read or write
/// through it.
/// </summary>
internal sealed class IoUringLoop : TransportLoop
{
    private const uint SubmissionEntries = 1024;

    // Every connection can have a receive, a send and two cancels outstanding at once; overflow beyond this is kept by
    // the kernel (FEAT_NODROP) and brought back by the next enter, so it costs time, not completions.
    private const uint CompletionEntries = 32 * 1024;

    private const int ReceiveBuffers = 1024;

    // An accept completes at most once per turn, and a turn under load serves hundreds of requests: with one accept in
    // flight, clients that reconnect every few requests (HttpArena's profiles) queued in the backlog for hundreds of
    // milliseconds. Several in flight accept that many connections per turn (docs/decisions/0008-measured-code-choices.md).
    internal const int AcceptsInFlight = 16;

    private static readonly TimeSpan AcceptBackOff = TimeSpan.FromMilliseconds(100);

    private readonly Ring _ring;
    private readonly ProvidedBufferRing _buffers;
    private readonly int _eventFd;
    private readonly unsafe ulong* _wakeValue;

    // One entry per armed accept, where the kernel writes the peer's address as it completes it (so no getpeername per
    // connection); a set bit in _freeAcceptAddresses is an entry no accept in flight names.
    private readonly unsafe AcceptAddress* _acceptAddresses;
    private uint _freeAcceptAddresses = (1U << AcceptsInFlight) - 1;
    private readonly List<Slot> _slots = [];
    private readonly Stack<int> _freeSlots = new();
    private int _listenFd;
    private int _accepting;

    // True from an accept that ran out of descriptors or memory until the back-off re-arms: the other armed accepts
    // fail for the same reason as they are woken, and count as that one failure, not one each with a timer each.
    private bool _acceptBackingOff;
    private bool _enabled;
    private bool _draining;

    // Operations submitted whose last completion has not arrived: the loop's resources are freed only at zero.
    private int _inFlight;

    public unsafe IoUringLoop(LinuxConnectionListener listener, int index, int listenFd)
        : base(listener, index)
    {
        _listenFd = listenFd;
        _ring = Ring.Create(SubmissionEntries, CompletionEntries, out int error)
            ?? throw new InvalidOperationException($"io_uring set-up failed: errno {-error}.");
        _buffers = ProvidedBufferRing.Create(_ring, ReceiveBuffers, PinnedBlockMemoryPool.BlockSize, out error)!;
        if (_buffers is null)
        {
            _ring.Dispose();
            throw new InvalidOperationException($"io_uring buffer ring registration failed: errno {-error}.");
        }

        // Blocking, unlike epoll's: io_uring would answer a read of a non-blocking descriptor with EAGAIN instead of
        // waiting for it. A write never blocks (the counter would have to reach 2^64 - 1).
        _eventFd = Libc.EventFd(0, Libc.EFD_CLOEXEC);
        if (_eventFd < 0)
        {
            error = Libc.LastError;
            _buffers.Dispose();
            _ring.Dispose();
            throw new InvalidOperationException($"eventfd failed: errno {-error}.");
        }

        _wakeValue = (ulong*)NativeMemory.Alloc(sizeof(ulong));
        _acceptAddresses = (AcceptAddress*)NativeMemory.AllocZeroed(AcceptsInFlight, (nuint)sizeof(AcceptAddress));
    }

    private enum Operation : uint
    {
        Accept = 1,
        Wake,
        Receive,
        Send,
        Cancel,
        Close,
    }

    protected override void Run()
    {
        int error = _ring.Enable();
        if (error != 0)
        {
            throw new InvalidOperationException($"io_uring could not be enabled on the loop thread: errno {-error}.");
        }

        _enabled = true;
        ArmWake();
        ArmAccept();
        while (true)
        {
            RunQueued();
            if (Stopping)
            {
                return;
            }

            error = _ring.SubmitAndWait(1);
            MarkAwake();
            if (error != 0 && error != -Libc.EINTR && error != -Libc.EBUSY)
            {
                throw new InvalidOperationException($"io_uring_enter failed: errno {-error}.");
            }

            Reap();
        }
    }

    protected override unsafe void Wake()
    {
        ulong one = 1;
        _ = Libc.Write(_eventFd, &one, sizeof(ulong));
    }

    internal override void ReceiveChanged(TransportConnection connection)
    {
        if (connection.IsClosed)
        {
            return;
        }

        Slot slot = SlotOf(connection);
        if (!connection.WantsReceive)
        {
            // Back-pressure or the end of the input: stop the multishot receive. Bytes it completes before the cancel
            // lands are kept in their buffers, in order, until the connection wants them (or closes).
            if (slot.Receiving && !slot.CancellingReceive)
            {
                slot.CancellingReceive = true;
                PrepareCancel(slot, Operation.Receive);
            }

            return;
        }

        if (slot.Held.Count > 0 && !DeliverHeld(slot, connection))
        {
            return;
        }

        if (!slot.Receiving && connection.WantsReceive && !connection.IsClosed)
        {
            PrepareReceive(slot);
        }
    }

    internal override unsafe ValueTask<int> SendAsync(TransportConnection connection, ReadOnlySequence<byte> data)
    {
        Slot slot = SlotOf(connection);
        Debug.Assert(!slot.Sending, "The send loop has one send in flight at a time.");
        Libc.SubmissionEntry* entry = _ring.Next();
        if (data.IsSingleSegment)
        {
            entry->Opcode = Libc.IORING_OP_SEND;
            entry->Address = (ulong)slot.Pin(data.First);
            entry->Length = (uint)data.First.Length;
        }
        else
        {
            entry->Opcode = Libc.IORING_OP_SENDMSG;
            entry->Address = (ulong)slot.Describe(in data);
        }

        entry->Fd = connection.Fd;
        entry->OpFlags = Libc.MSG_NOSIGNAL;
        entry->UserData = UserData(Operation.Send, slot.Index);
        slot.Sending = true;
        slot.Sender = connection;
        slot.Pending++;
        _inFlight++;
        return connection.WaitToSend(kernelHoldsMemory: true);
    }

    protected override void Closing(TransportConnection connection)
    {
        // The descriptor is closed right after this; what is in flight on it still holds the socket, so cancel it (by
        // operation, not by descriptor: the number may be reused at once). The slot is freed when the last completion
        // for it arrives, so those completions never meet a newer connection.
        if (connection.LoopRegistration == 0)
        {
            return;
        }

        Slot slot = _slots[(int)connection.LoopRegistration - 1];
        if (slot.Receiving && !slot.CancellingReceive)
        {
            slot.CancellingReceive = true;
            PrepareCancel(slot, Operation.Receive);
        }

        while (slot.Held.TryDequeue(out HeldBuffer held))
        {
            if (held.Length > 0)
            {
                _buffers.Return(held.Id);
            }
        }

        if (slot.Sending)
        {
            // The send keeps its memory and its wait until its own completion, which the cancel brings about.
            PrepareCancel(slot, Operation.Send);
        }

        slot.Connection = null;
        connection.LoopRegistration = 0;
        ReleaseIfIdle(slot);
    }

    protected override unsafe void CloseDescriptor(int fd)
    {
        if (!_enabled)
        {
            _ = Libc.Close(fd);
            return;
        }

        // Closed by the ring, behind the entries prepared this turn: a receive armed or a send prepared for this
        // descriptor, not yet submitted, names it by number, and close(2) now would let a socket opened meanwhile (an
        // accept, a database connection) take the number and receive this connection's bytes. The kernel takes each
        // entry's file in submission order, so the close cannot overtake them, and it costs no system call of its own.
        Libc.SubmissionEntry* entry = _ring.Next();
        entry->Opcode = Libc.IORING_OP_CLOSE;
        entry->Fd = fd;
        entry->UserData = UserData(Operation.Close, uint.MaxValue);
        _inFlight++;
    }

    protected internal override unsafe void StopAccepting()
    {
        if (_listenFd < 0)
        {
            return;
        }

        if (_accepting > 0)
        {
            // The armed accepts hold the listening socket open: cancel them all (every operation on the listening
            // socket is one), and submit now, so the port is released before the close below rather than at the next turn.
            Libc.SubmissionEntry* entry = _ring.Next();
            entry->Opcode = Libc.IORING_OP_ASYNC_CANCEL;
            entry->Fd = _listenFd;
            entry->OpFlags = Libc.IORING_ASYNC_CANCEL_ALL | Libc.IORING_ASYNC_CANCEL_FD;
            entry->UserData = UserData(Operation.Cancel, uint.MaxValue);
            _inFlight++;
            if (_enabled)
            {
                _ = _ring.SubmitAndWait(0);
            }
        }

        _ = Libc.Close(_listenFd);
        _listenFd = -1;
    }

    protected override unsafe void ReleaseResources()
    {
        bool quiet = !_enabled || Drain();
        _ring.Dispose();
        _ = Libc.Close(_eventFd);
        if (quiet)
        {
            // Nothing is in flight: the kernel holds no pointer into this memory any more.
            foreach (Slot slot in _slots)
            {
                slot.Dispose();
            }

            _buffers.Dispose();
            NativeMemory.Free(_wakeValue);
            NativeMemory.Free(_acceptAddresses);
        }
    }

    // The operation in the top byte, the slot in the low word, and between them the slot's receive generation, so a
    // cancel aimed at one multishot receive can never hit the next one armed on the same slot.
    private static ulong UserData(Operation operation, uint slot, ushort generation = 0) => ((ulong)operation << 56) | ((ulong)generation << 32) | slot;

    private Slot SlotOf(TransportConnection connection)
    {
        if (connection.LoopRegistration != 0)
        {
            return _slots[(int)connection.LoopRegistration - 1];
        }

        Slot slot;
        if (_freeSlots.TryPop(out int index))
        {
            slot = _slots[index];
        }
        else
        {
            slot = new Slot((uint)_slots.Count);
            _slots.Add(slot);
        }

        slot.Connection = connection;
        slot.Free = false;
        connection.LoopRegistration = slot.Index + 1;
        return slot;
    }

    private void ReleaseIfIdle(Slot slot)
    {
        if (slot.Connection is null && slot.Pending == 0 && !slot.Free)
        {
            slot.Free = true;
            _freeSlots.Push((int)slot.Index);
        }
    }

    private unsafe void PrepareReceive(Slot slot)
    {
        Libc.SubmissionEntry* entry = _ring.Next();
        entry->Opcode = Libc.IORING_OP_RECV;
        entry->Fd = slot.Connection!.Fd;
        entry->IoPriority = Libc.IORING_RECV_MULTISHOT;
        entry->Flags = Libc.IOSQE_BUFFER_SELECT;
        entry->BufferGroup = ProvidedBufferRing.GroupId;
        slot.ReceiveGeneration++;
        entry->UserData = UserData(Operation.Receive, slot.Index, slot.ReceiveGeneration);
        slot.Receiving = true;
        slot.CancellingReceive = false;
        slot.Free = false;
        slot.Pending++;
        _inFlight++;
    }

    private unsafe void PrepareCancel(Slot slot, Operation operation)
    {
        Libc.SubmissionEntry* entry = _ring.Next();
        entry->Opcode = Libc.IORING_OP_ASYNC_CANCEL;
        entry->Fd = -1;
        entry->Address = UserData(operation, slot.Index, operation == Operation.Receive ? slot.ReceiveGeneration : (ushort)0);
        entry->UserData = UserData(Operation.Cancel, slot.Index);
        slot.Pending++;
        _inFlight++;
    }

    private unsafe void ArmWake()
    {
        Libc.SubmissionEntry* entry = _ring.Next();
        entry->Opcode = Libc.IORING_OP_READ;
        entry->Fd = _eventFd;
        entry->Address = (ulong)_wakeValue;
        entry->Length = sizeof(ulong);
        entry->UserData = UserData(Operation.Wake, 0);
        _inFlight++;
    }

    private void EndAcceptBackOff()
    {
        _acceptBackingOff = false;
        ArmAccept();
    }

    private unsafe void ArmAccept()
    {
        if (_listenFd < 0 || Stopping)
        {
            return;
        }

        while (_accepting < AcceptsInFlight)
        {
            // As many entries as accepts in flight, each freed as its accept completes: there is always one here.
            int index = BitOperations.TrailingZeroCount(_freeAcceptAddresses);
            _freeAcceptAddresses &= ~(1U << index);
            AcceptAddress* peer = &_acceptAddresses[index];
            peer->Length = Libc.SocketAddress.Size;
            Libc.SubmissionEntry* entry = _ring.Next();
            entry->Opcode = Libc.IORING_OP_ACCEPT;
            entry->Fd = _listenFd;
            entry->Address = (ulong)&peer->Address;
            entry->Offset = (ulong)&peer->Length;
            // Blocking sockets: io_uring waits for readiness itself, and the few direct calls (shutdown, close) never block.
            entry->OpFlags = Libc.SOCK_CLOEXEC;
            entry->UserData = UserData(Operation.Accept, (uint)index);
            _accepting++;
            _inFlight++;
        }
    }

    private void Reap()
    {
        while (_ring.TryPeek(out Libc.CompletionEntry completion))
        {
            _ring.Advance();
            if ((completion.Flags & Libc.IORING_CQE_F_MORE) == 0)
            {
                _inFlight--;
            }

            uint slot = (uint)completion.UserData;
            switch ((Operation)(completion.UserData >> 56))
            {
                case Operation.Receive:
                    Received(_slots[(int)slot], completion.Result, completion.Flags);
                    break;
                case Operation.Send:
                    Sent(_slots[(int)slot], completion.Result);
                    break;
                case Operation.Accept:
                    AcceptCompleted(completion.Result, (int)slot);
                    break;
                case Operation.Wake:
                    // Only to end the wait; the queue is run at the top of the loop.
                    if (!_draining)
                    {
                        ArmWake();
                    }

                    break;
                case Operation.Close:
                    if (completion.Result < 0)
                    {
                        TransportLog.CloseFailed(Logger, -completion.Result, Index);
                    }

                    break;
                case Operation.Cancel:
                    if (slot != uint.MaxValue)
                    {
                        Slot cancelled = _slots[(int)slot];
                        cancelled.Pending--;
                        ReleaseIfIdle(cancelled);
                    }

                    break;
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Received(Slot slot, int result, uint flags)
    {
        // Multishot: the receive stays armed while completions carry F_MORE; the last one (an error, the end of the
        // stream, a cancel, or no buffer left) ends it.
        if ((flags & Libc.IORING_CQE_F_MORE) == 0)
        {
            slot.Receiving = false;
            slot.CancellingReceive = false;
            slot.Pending--;
        }

        TransportConnection? connection = slot.Connection;
        if (result > 0)
        {
            ushort id = (ushort)(flags >> Libc.IORING_CQE_BUFFER_SHIFT);
            if (connection is null)
            {
                _buffers.Return(id);
            }
            else if (!connection.WantsReceive || slot.Held.Count > 0)
            {
                // Completed before the cancel landed (or behind bytes already held): keep it, in order.
                slot.Held.Enqueue(new HeldBuffer(id, result));
            }
            else
            {
                // May run the application inline, which may pause, end the input or close the connection; each tells
                // ReceiveChanged or Closing, which cancel the receive.
                _ = connection.OnReceived(_buffers.Get(id, result));
                _buffers.Return(id);
            }
        }
        else if (connection is not null && result is not (-Libc.ECANCELED or -Libc.ENOBUFS or -Libc.EINTR or -Libc.EAGAIN))
        {
            // The end of the stream (0) or an error: after any bytes held, so it is held too if they are.
            if (slot.Held.Count > 0)
            {
                slot.Held.Enqueue(new HeldBuffer(0, result));
                _ = connection.WantsReceive && DeliverHeld(slot, connection);
            }
            else
            {
                _ = connection.OnReceived(result);
            }
        }

        // Ended while still wanted (ENOBUFS: every buffer was taken in this turn, and they are back by the time this
        // is submitted; or a cancel that a resume overtook): arm again.
        if (!slot.Receiving && slot.Connection is { IsClosed: false, WantsReceive: true } && slot.Held.Count == 0 && result != 0)
        {
            PrepareReceive(slot);
        }

        ReleaseIfIdle(slot);
    }

    /// <summary>Hands held bytes to the connection in order; false if it stopped wanting them (some stay held).</summary>
    private bool DeliverHeld(Slot slot, TransportConnection connection)
    {
        while (slot.Held.TryPeek(out HeldBuffer held))
        {
            if (!connection.WantsReceive || connection.IsClosed)
            {
                return false;
            }

            _ = slot.Held.Dequeue();
            if (held.Length <= 0)
            {
                _ = connection.OnReceived(held.Length);
                continue;
            }

            _ = connection.OnReceived(_buffers.Get(held.Id, held.Length));
            _buffers.Return(held.Id);
        }

        return connection.WantsReceive && !connection.IsClosed;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Sent(Slot slot, int result)
    {
        TransportConnection sender = slot.Sender!;
        slot.Sending = false;
        slot.Sender = null;
        slot.Pending--;
        // Reaped: the kernel is done with the memory, and only now may the send loop give it back to the pipe
        // (docs/decisions/0001-io-uring-send-memory.md).
        slot.ReleaseMemory();
        // EAGAIN or EINTR: nothing sent, try again (a closed connection's send loop stops instead). Otherwise the
        // count sent or the error, ECANCELED for a send cancelled by the close.
        sender.CompleteSendWait(result is -Libc.EAGAIN or -Libc.EINTR ? 0 : result);
        ReleaseIfIdle(slot);
    }

    private unsafe void AcceptCompleted(int result, int index)
    {
        _accepting--;
        // The completion is reaped: the kernel is done with this entry's memory.
        Libc.SocketAddress address = _acceptAddresses[index].Address;
        _freeAcceptAddresses |= 1U << index;
        if (result >= 0)
        {
            if (_listenFd < 0 || Stopping)
            {
                // Accepted while the listener was being cancelled: nobody will take it.
                Libc.SetResetOnClose(result);
                _ = Libc.Close(result);
                return;
            }

            Accepted(result, in address);
        }
        else if (result is not (-Libc.ECANCELED or -Libc.EINTR or -Libc.ECONNABORTED))
        {
            if (_acceptBackingOff && IsOutOfResources(-result))
            {
                // Another of the armed accepts, failing as the first did: the back-off already pending re-arms it.
                return;
            }

            if (AcceptFailed(-result))
            {
                // Out of descriptors or memory: accepting again at once would fail again at once. Serve the connections
                // we have and look again after the back-off.
                _acceptBackingOff = true;
                PostAfter(AcceptBackOff, static s => ((IoUringLoop)s!).EndAcceptBackOff(), this);
                return;
            }
        }

        ArmAccept();
    }

    /// <summary>
    /// Before the ring and the buffers are freed, every operation is cancelled and its completion reaped, so the kernel
    /// cannot write into freed memory. False if that did not happen within 2 s: the memory is then leaked, not freed.
    /// </summary>
    private unsafe bool Drain()
    {
        Libc.SubmissionEntry* entry = _ring.Next();
        entry->Opcode = Libc.IORING_OP_ASYNC_CANCEL;
        entry->Fd = -1;
        entry->OpFlags = Libc.IORING_ASYNC_CANCEL_ANY | Libc.IORING_ASYNC_CANCEL_ALL;
        entry->UserData = UserData(Operation.Cancel, uint.MaxValue);
        _inFlight++;
        _draining = true;
        long start = Time.GetTimestamp();
        while (_inFlight > 0)
        {
            int error = _ring.SubmitAndWait(TimeSpan.FromMilliseconds(100));
            if ((error != 0 && error != -Libc.EINTR && error != -Libc.EBUSY && error != -Libc.ETIME) || Time.GetElapsedTime(start) > TimeSpan.FromSeconds(2))
            {
                TransportLog.DrainFailed(Logger, -error, Index);
                return false;
            }

            // Completions now only return buffers and release slots: every connection is closed.
            Reap();
        }

        return true;
    }

    /// <summary>Bytes held in buffer <c>Id</c>; a <c>Length</c> of 0 or less is the end of the stream or an error, held behind them.</summary>
    private readonly record struct HeldBuffer(ushort Id, int Length);

    /// <summary>A connection's share of the loop: what it has in flight and the memory a send needs until it completes.</summary>
    private sealed class Slot(uint index) : IDisposable
    {
        private const int MaxVectors = 64;

        // The pool's blocks the send in flight reads from, marked lent until its completion is reaped.
        private readonly PinnedBlock?[] _lent = new PinnedBlock?[MaxVectors];
        private int _lentCount;
        private unsafe Libc.MessageHeader* _message;
        private MemoryHandle _pin;
        private bool _pinned;

        public uint Index { get; } = index;

        public TransportConnection? Connection { get; set; }

        /// <summary>A multishot receive is armed (until its completion without F_MORE).</summary>
        public bool Receiving { get; set; }

        public bool CancellingReceive { get; set; }

        public ushort ReceiveGeneration { get; set; }

        /// <summary>Buffers received while the connection did not want them (back-pressure), in arrival order.</summary>
        public Queue<HeldBuffer> Held { get; } = new();

        public bool Sending { get; set; }

        /// <summary>The connection whose send is in flight; it outlives <see cref="Connection"/> when the close cancels the send.</summary>
        public TransportConnection? Sender { get; set; }

        public bool Free { get; set; }

        public int Pending { get; set; }

        /// <summary>
        /// The address of <paramref name="memory"/> for the kernel, which holds it until <see cref="ReleaseMemory"/>.
        /// Blocks of the pinned pool need no pin, and are marked lent so the pool would not hand one out early; anything
        /// else (a large buffer the pipe took from the shared array pool) is pinned until the send completes.
        /// </summary>
        public unsafe byte* Pin(ReadOnlyMemory<byte> memory)
        {
            if (MemoryMarshal.TryGetMemoryManager(memory, out PinnedBlock? block, out int start, out _))
            {
                block.LendToKernel();
                _lent[_lentCount++] = block;
                return block.Pointer + start;
            }

            Debug.Assert(!_pinned, "One foreign pin per send.");
            _pin = memory.Pin();
            _pinned = true;
            return (byte*)_pin.Pointer;
        }

        /// <summary>The send's completion was reaped: its blocks are no longer lent, and a foreign buffer is unpinned.</summary>
        public void ReleaseMemory()
        {
            for (int i = 0; i < _lentCount; i++)
            {
                _lent[i]!.ReturnFromKernel();
                _lent[i] = null;
            }

            _lentCount = 0;
            if (_pinned)
            {
                _pin.Dispose();
                _pinned = false;
            }
        }

        /// <summary>A msghdr over the first segments of <paramref name="data"/> (at most one foreign), valid until the send completes.</summary>
        public unsafe Libc.MessageHeader* Describe(in ReadOnlySequence<byte> data)
        {
            if (_message is null)
            {
                _message = (Libc.MessageHeader*)NativeMemory.AllocZeroed((nuint)(sizeof(Libc.MessageHeader) + (MaxVectors * sizeof(Libc.IoVector))));
            }

            var vectors = (Libc.IoVector*)(_message + 1);
            int count = 0;
            foreach (ReadOnlyMemory<byte> segment in data)
            {
                if (segment.IsEmpty)
                {
                    continue;
                }

                if (!MemoryMarshal.TryGetMemoryManager(segment, out PinnedBlock? _, out int _, out int _) && _pinned)
                {
                    break;
                }

                vectors[count++] = new Libc.IoVector { Base = Pin(segment), Length = (nuint)segment.Length };
                if (count == MaxVectors)
                {
                    break;
                }
            }

            *_message = default;
            _message->Vectors = vectors;
            _message->VectorCount = (nuint)count;
            return _message;
        }

        public unsafe void Dispose()
        {
            ReleaseMemory();
            NativeMemory.Free(_message);
            _message = null;
        }
    }

    /// <summary>Where an armed accept's kernel writes the peer's address (sockaddr_in6 at most) and its length.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct AcceptAddress
    {
        public Libc.SocketAddress Address;
        public uint Length;
    }
}
