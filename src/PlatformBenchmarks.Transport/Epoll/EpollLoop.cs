using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport.Epoll;

/// <summary>
/// The epoll kind of <see cref="TransportLoop"/>: one epoll instance per thread, level-triggered, over the loop's
/// listening socket, an eventfd for wake-ups, and its connections. Interest changes only at the edges of a connection's
/// life (back-pressure, a full socket buffer, end of stream), so steady state costs one recv and one send per request
/// plus an epoll_wait shared by every connection ready in the same turn.
///
/// Memory: the event array is native memory the loop owns until <see cref="ReleaseResources"/>, as its thread ends.
/// Every other pointer lives for one system call: stack memory, pool blocks (pinned for the pool's life), or foreign
/// memory pinned around the call.
/// </summary>
internal sealed class EpollLoop : TransportLoop
{
    private const int MaxEvents = 512;

    // A connection readable for longer than this many full receives yields to the others in the same turn.
    private const int ReceivesPerTurn = 16;

    private static readonly TimeSpan AcceptBackOff = TimeSpan.FromMilliseconds(100);

    private readonly int _epoll;
    private readonly int _eventFd;
    private readonly unsafe byte* _events;
    private int _listenFd;
    private bool _listenerArmed;

    public unsafe EpollLoop(LinuxConnectionListener listener, int index, int listenFd)
        : base(listener, index)
    {
        _listenFd = listenFd;
        _epoll = Libc.EpollCreate1(Libc.EPOLL_CLOEXEC);
        _eventFd = Libc.EventFd(0, Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK);
        if (_epoll < 0 || _eventFd < 0 || Libc.EpollControl(_epoll, Libc.EPOLL_CTL_ADD, _eventFd, Libc.EPOLLIN) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            CloseDescriptors();
            throw new InvalidOperationException($"epoll loop set-up failed: errno {errno}.");
        }

        _events = (byte*)NativeMemory.Alloc((nuint)(MaxEvents * Libc.EpollEventSize));
        ArmListener();
    }

    protected override unsafe void Run()
    {
        int eventSize = Libc.EpollEventSize;
        int dataOffset = Libc.EpollDataOffset;
        while (true)
        {
            RunQueued();
            if (Stopping)
            {
                return;
            }

            int count = Libc.EpollWait(_epoll, _events, MaxEvents, -1);
            MarkAwake();
            if (count < 0)
            {
                int errno = Marshal.GetLastPInvokeError();
                if (errno == Libc.EINTR)
                {
                    continue;
                }

                throw new InvalidOperationException($"epoll_wait failed: errno {errno}.");
            }

            for (int i = 0; i < count; i++)
            {
                byte* entry = _events + (i * eventSize);
                uint events = Unsafe.ReadUnaligned<uint>(entry);
                int fd = (int)Unsafe.ReadUnaligned<ulong>(entry + dataOffset);
                if (fd == _eventFd)
                {
                    ulong value;
                    _ = Libc.Read(_eventFd, &value, sizeof(ulong));
                }
                else if (fd == _listenFd)
                {
                    Accept();
                }
                else if (Find(fd) is { } connection)
                {
                    Dispatch(connection, events);
                }
            }
        }
    }

    protected override unsafe void Wake()
    {
        ulong one = 1;
        _ = Libc.Write(_eventFd, &one, sizeof(ulong));
    }

    internal override void ReceiveChanged(TransportConnection connection) => UpdateInterest(connection);

    internal override ValueTask<int> SendAsync(TransportConnection connection, ReadOnlySequence<byte> data)
    {
        nint sent = Send(connection.Fd, in data);
        if (sent >= 0)
        {
            return new ValueTask<int>((int)sent);
        }

        int errno = Marshal.GetLastPInvokeError();
        if (errno == Libc.EAGAIN)
        {
            // The socket buffer is full (a slow reader): wait for EPOLLOUT, then the send loop tries again.
            ValueTask<int> wait = connection.WaitToSend(kernelHoldsMemory: false);
            UpdateInterest(connection);
            return wait;
        }

        return new ValueTask<int>(errno == Libc.EINTR ? 0 : -errno);
    }

    protected override void Closing(TransportConnection connection)
    {
        // close(2) removes the descriptor from the epoll set; events already returned for it in this turn find no
        // connection (or, if the number is reused at once, a spurious readiness that ends in EAGAIN).
    }

    // send(2) copied the bytes before it returned, so nothing of the connection's is left with the kernel.
    protected override void CloseDescriptor(int fd) => _ = Libc.Close(fd);

    protected internal override void StopAccepting()
    {
        if (_listenFd < 0)
        {
            return;
        }

        // close(2) alone would leave the registration until the last reference goes; take it out first.
        if (_listenerArmed)
        {
            _ = Libc.EpollControl(_epoll, Libc.EPOLL_CTL_DEL, _listenFd, 0);
            _listenerArmed = false;
        }

        _ = Libc.Close(_listenFd);
        _listenFd = -1;
    }

    protected override unsafe void ReleaseResources()
    {
        CloseDescriptors();
        NativeMemory.Free(_events);
    }

    private void CloseDescriptors()
    {
        if (_eventFd >= 0)
        {
            _ = Libc.Close(_eventFd);
        }

        if (_epoll >= 0)
        {
            _ = Libc.Close(_epoll);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Dispatch(TransportConnection connection, uint events)
    {
        const uint Failure = Libc.EPOLLERR | Libc.EPOLLHUP;
        if ((events & (Libc.EPOLLOUT | Failure)) != 0 && connection.WaitingToSend)
        {
            // Room to send (or an error, which the retried send reports); the send loop continues inline.
            connection.CompleteSendWait(0);
            UpdateInterest(connection);
        }

        if ((events & (Libc.EPOLLIN | Failure)) != 0 && connection.WantsReceive)
        {
            Receive(connection);
        }
    }

    private static unsafe void Receive(TransportConnection connection)
    {
        for (int i = 0; i < ReceivesPerTurn; i++)
        {
            Memory<byte> memory = connection.GetReceiveMemory();
            nint received;
            using (MemoryHandle pin = memory.Pin())
            {
                received = Libc.Recv(connection.Fd, pin.Pointer, (nuint)memory.Length, 0);
            }

            if (received > 0)
            {
                // A short read drained the socket buffer: wait for epoll rather than spend a recv on EAGAIN.
                if (!connection.OnReceived((int)received) || received < memory.Length)
                {
                    return;
                }

                continue;
            }

            if (received == 0)
            {
                _ = connection.OnReceived(0);
                return;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == Libc.EAGAIN)
            {
                return;
            }

            if (errno != Libc.EINTR)
            {
                _ = connection.OnReceived(-errno);
                return;
            }
        }
    }

    /// <summary>Registers what the connection waits for now: EPOLLIN while it receives, EPOLLOUT while a send waits.</summary>
    private void UpdateInterest(TransportConnection connection)
    {
        if (connection.IsClosed)
        {
            return;
        }

        uint wanted = (connection.WantsReceive ? Libc.EPOLLIN : 0) | (connection.WaitingToSend ? Libc.EPOLLOUT : 0);
        uint current = connection.LoopRegistration;
        if (wanted == current)
        {
            return;
        }

        // Nothing wanted: out of the set entirely, or EPOLLHUP (always reported) would wake a level-triggered loop
        // forever for a connection that both sides have half-closed.
        int op = current == 0 ? Libc.EPOLL_CTL_ADD : wanted == 0 ? Libc.EPOLL_CTL_DEL : Libc.EPOLL_CTL_MOD;
        _ = Libc.EpollControl(_epoll, op, connection.Fd, wanted);
        connection.LoopRegistration = wanted;
    }

    private unsafe void Accept()
    {
        // A bounded batch, so a flood of connections cannot starve the connections already here.
        for (int i = 0; i < 64; i++)
        {
            Libc.SocketAddress address;
            uint length = Libc.SocketAddress.Size;
            int fd = Libc.Accept4(_listenFd, &address, &length, Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC);
            if (fd >= 0)
            {
                Accepted(fd, in address);
                continue;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == Libc.EAGAIN)
            {
                return;
            }

            if (errno is Libc.EINTR or Libc.ECONNABORTED)
            {
                continue;
            }

            if (AcceptFailed(errno) && _listenerArmed)
            {
                // Out of descriptors: level-triggered readiness would report the listener again at once. Stop
                // watching it and look again after the back-off, serving the connections we have meanwhile.
                _ = Libc.EpollControl(_epoll, Libc.EPOLL_CTL_DEL, _listenFd, 0);
                _listenerArmed = false;
                PostAfter(AcceptBackOff, static s => ((EpollLoop)s!).ArmListener(), this);
            }

            return;
        }
    }

    private void ArmListener()
    {
        if (_listenFd >= 0 && !_listenerArmed && !Stopping)
        {
            _listenerArmed = Libc.EpollControl(_epoll, Libc.EPOLL_CTL_ADD, _listenFd, Libc.EPOLLIN) == 0;
        }
    }

    /// <summary>One send(2) for a single segment, one sendmsg(2) for several; MSG_NOSIGNAL so a closed peer is EPIPE, not SIGPIPE.</summary>
    private static unsafe nint Send(int fd, in ReadOnlySequence<byte> data)
    {
        if (data.IsSingleSegment)
        {
            ReadOnlyMemory<byte> memory = data.First;
            using MemoryHandle pin = memory.Pin();
            return Libc.Send(fd, pin.Pointer, (nuint)memory.Length, Libc.MSG_NOSIGNAL);
        }

        return SendVector(fd, in data);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static unsafe nint SendVector(int fd, in ReadOnlySequence<byte> data)
    {
        const int MaxVectors = 64;
        Libc.IoVector* vectors = stackalloc Libc.IoVector[MaxVectors];
        int count = 0;
        // Blocks of the pinned pool need no pin; anything else (a large buffer the pipe took from the shared array
        // pool) is pinned for the call. One such pin per call: the send stops before a second.
        MemoryHandle foreign = default;
        bool pinnedForeign = false;
        foreach (ReadOnlyMemory<byte> segment in data)
        {
            if (segment.IsEmpty)
            {
                continue;
            }

            byte* address;
            if (MemoryMarshal.TryGetMemoryManager(segment, out PinnedBlock? block, out int start, out _))
            {
                address = block.Pointer + start;
            }
            else if (!pinnedForeign)
            {
                foreign = segment.Pin();
                pinnedForeign = true;
                address = (byte*)foreign.Pointer;
            }
            else
            {
                break;
            }

            vectors[count++] = new Libc.IoVector { Base = address, Length = (nuint)segment.Length };
            if (count == MaxVectors)
            {
                break;
            }
        }

        Libc.MessageHeader message = default;
        message.Vectors = vectors;
        message.VectorCount = (nuint)count;
        nint sent = Libc.SendMsg(fd, &message, Libc.MSG_NOSIGNAL);
        foreign.Dispose();
        return sent;
    }
}
