using System.Buffers;
using System.Collections.Concurrent;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// One loop thread: it owns a listening socket, the connections accepted from it for their whole life, and a pinned
/// memory pool, and it is the <see cref="PipeScheduler"/> of those connections' pipes. A pipe continuation scheduled on
/// the loop thread runs inline; from any other thread it is queued and the loop is woken. So a request is received,
/// parsed, answered and sent on this thread, and work finishing elsewhere (a database reply on the thread pool) reaches
/// the socket through the pipe and one wake-up.
///
/// The seam between the kinds. Everything but the event mechanism is shared: this type (thread, scheduler, wake-up
/// queue, fd table, accept bookkeeping, shutdown), <see cref="TransportConnection"/> (pipes, back-pressure, the send
/// loop, the close order), <see cref="PinnedBlockMemoryPool"/> and <see cref="LinuxConnectionListener"/>. A kind
/// (Epoll/EpollLoop.cs) implements only:
/// <list type="bullet">
/// <item><see cref="Run"/>: wait for events and dispatch them until <see cref="Stopping"/>, calling <see cref="RunQueued"/>
/// before each wait and <see cref="MarkAwake"/> after it; accepted sockets go to <see cref="Accepted"/>, received
/// bytes to <see cref="TransportConnection.OnReceived"/> (into <see cref="TransportConnection.GetReceiveMemory"/>).</item>
/// <item><see cref="Wake"/>: make a blocked <see cref="Run"/> return (both kinds write to an eventfd of the loop). Any
/// thread calls it, but never at the same time as, or after, <see cref="ReleaseResources"/>.</item>
/// <item><see cref="ReceiveChanged"/>: start or stop receiving on a connection, per <see cref="TransportConnection.WantsReceive"/>.</item>
/// <item><see cref="SendAsync"/>: send a prefix of the bytes; the result is the count sent (0: nothing yet, call again)
/// or a negative errno. <see cref="TransportConnection.WaitToSend"/> gives a reusable awaitable for a send that must wait.</item>
/// <item><see cref="Closing"/>: forget a connection whose descriptor is about to be closed (io_uring: cancel its
/// operations; a send the kernel holds keeps its wait until its own completion), then <see cref="CloseDescriptor"/>;
/// <see cref="StopAccepting"/> and <see cref="ReleaseResources"/>.</item>
/// </list>
/// Calls into a connection may run the application inline, which may close the connection: a kind re-checks
/// <see cref="TransportConnection.IsClosed"/> after each. <see cref="TransportConnection.LoopRegistration"/> is the kind's
/// own per-connection word: what it has registered for the connection. A new kind is wired in at three places: LinuxConnectionListener.CreateLoop,
/// LinuxTransportFactory (the kinds it accepts) and TransportChooser (Auto's order, with a reason for the banner).
/// </summary>
internal abstract class TransportLoop : PipeScheduler
{
    [ThreadStatic]
    private static TransportLoop? t_current;

    private readonly ConcurrentQueue<Work> _queue = new();
    private readonly Lock _wakeLock = new();
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly LinuxConnectionListener _listener;
    private readonly Thread _thread;
    private TransportConnection?[] _connections = new TransportConnection?[256];
    private int _connectionCount;

    // 0: the loop may be blocked waiting and must be woken for queued work; 1: it is awake, or a wake-up is on its way,
    // and it drains the queue before it waits again.
    private int _awake = 1;
    private volatile bool _stopping;

    // Set (under _wakeLock) once the loop runs no more work and is about to close its wake-up descriptor: from then on
    // Wake is never called (the number may already belong to another descriptor) and queued work goes to the thread pool.
    private volatile bool _ended;
    private long _lastAcceptFailureLog = long.MinValue;
    private int _acceptFailures;

    protected TransportLoop(LinuxConnectionListener listener, int index)
    {
        _listener = listener;
        Index = index;
        Pool = new PinnedBlockMemoryPool();
        long maxRead = listener.Options.MaxReadBufferSize;
        long maxWrite = listener.Options.MaxWriteBufferSize;
        InputOptions = new PipeOptions(Pool, readerScheduler: this, writerScheduler: this, pauseWriterThreshold: maxRead, resumeWriterThreshold: maxRead / 2, minimumSegmentSize: PinnedBlockMemoryPool.BlockSize, useSynchronizationContext: false);
        OutputOptions = new PipeOptions(Pool, readerScheduler: this, writerScheduler: this, pauseWriterThreshold: maxWrite, resumeWriterThreshold: maxWrite / 2, minimumSegmentSize: PinnedBlockMemoryPool.BlockSize, useSynchronizationContext: false);
        NextTurn = new NextTurnScheduler(this);
        _thread = new Thread(static s => ((TransportLoop)s!).ThreadMain())
        {
            IsBackground = true,
            Name = $"pb-transport-{index}",
        };
    }

    public int Index { get; }

    /// <summary>The loop thread's own loop, or null on any other thread.</summary>
    internal static TransportLoop? Current => t_current;


    /// <summary><see cref="Post"/> as a <see cref="PipeScheduler"/>: the connections' <see cref="ITransportLoopFeature.NextTurn"/>.</summary>
    public PipeScheduler NextTurn { get; }

    /// <summary>The loop thread's managed id: the connections' <see cref="ITransportLoopFeature.LoopThreadId"/>.</summary>
    public int ThreadId => _thread.ManagedThreadId;

    public PinnedBlockMemoryPool Pool { get; }

    public PipeOptions InputOptions { get; }

    public PipeOptions OutputOptions { get; }

    public ILogger Logger => _listener.Logger;

    public TimeProvider Time => _listener.Time;

    /// <summary>Connections this loop owns now: <see cref="TransportMetrics"/> reports it.</summary>
    internal int ConnectionCount => Volatile.Read(ref _connectionCount);

    public Task Stopped => _stopped.Task;

    /// <summary>
    /// Accepts that failed so far, logged or not (a loop that spun on a failing accept would run this up): the log line
    /// and <see cref="TransportMetrics"/> report it.
    /// </summary>
    internal int AcceptFailures => Volatile.Read(ref _acceptFailures);

    protected bool Stopping => _stopping;

    internal LinuxConnectionListener Listener => _listener;

    public void Start() => _thread.Start(this);

    /// <summary>Aborts every connection, closes the listener and the loop's descriptors, and ends the thread.</summary>
    public Task StopAsync()
    {
        _stopping = true;
        WakeUnlessEnded();
        return _stopped.Task;
    }

    /// <summary>Runs on the loop: inline when already there, otherwise queued with a wake-up.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public override void Schedule(Action<object?> action, object? state)
    {
        if (t_current == this)
        {
            action(state);
        }
        else
        {
            Post(action, state);
        }
    }

    /// <summary>
    /// Queues work for the loop's next turn, waking it if it may be waiting; never runs it inline (the contract is
    /// <see cref="ITransportLoopFeature.NextTurn"/>'s). Once the loop has ended, runs it on the thread pool.
    /// </summary>
    public void Post(Action<object?> action, object? state)
    {
        _queue.Enqueue(new Work(action, state));
        // The loop's own thread needs no wake-up: it runs the queue before it next waits (or, while it runs the queue,
        // before it returns), and it must leave _awake alone, or the loop would wait with it set and miss wake-ups.
        // Elsewhere the exchange is also the full fence between the enqueue and the read of _ended below; ThreadMain has
        // its own between setting _ended and its last look at the queue, so one of the two sees the work.
        if (t_current != this && Interlocked.CompareExchange(ref _awake, 1, 0) == 0)
        {
            WakeUnlessEnded();
        }

        if (_ended)
        {
            DrainToThreadPool();
        }
    }

    /// <summary>Runs <paramref name="action"/> on the loop and completes when it has.</summary>
    public Task InvokeAsync(Action action)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Post(static s =>
        {
            (Action? work, TaskCompletionSource? completion) = ((Action, TaskCompletionSource))s!;
            try
            {
                work();
                completion.TrySetResult();
            }
            catch (Exception ex)
            {
                completion.TrySetException(ex);
            }
        }, (action, done));
        return done.Task;
    }

    internal TransportConnection? Find(int fd) => (uint)fd < (uint)_connections.Length ? _connections[fd] : null;

    /// <summary>Called by the connection, on the loop, when it closes: the kind lets go of it and closes its descriptor.</summary>
    internal void Forget(TransportConnection connection)
    {
        Closing(connection);
        int fd = connection.Fd;
        if ((uint)fd < (uint)_connections.Length && _connections[fd] == connection)
        {
            _connections[fd] = null;
            Interlocked.Decrement(ref _connectionCount);
        }

        CloseDescriptor(fd);
    }

    /// <summary>A kind's accept produced <paramref name="fd"/>: make it a connection of this loop and hand it to the application.</summary>
    protected void Accepted(int fd, in Libc.SocketAddress remote)
    {
        if (fd >= _connections.Length)
        {
            Array.Resize(ref _connections, Math.Max(fd + 1, _connections.Length * 2));
        }

        var connection = new TransportConnection(this, fd, in remote, _listener.EndPoint);
        _connections[fd] = connection;
        Interlocked.Increment(ref _connectionCount);
        connection.Start();
        if (!_listener.Publish(connection))
        {
            // Unbound in the meantime: nobody will accept it.
            connection.Abort(new ConnectionAbortedException("The listener is closed."));
        }
    }

    /// <summary>
    /// An accept failed with <paramref name="errno"/> (positive). Logs at most once a second. Returns true when the kind
    /// should stop accepting for a while (out of descriptors or memory): retrying at once would spin.
    /// </summary>
    protected bool AcceptFailed(int errno)
    {
        // Counted after the log line is written (this thread is the only writer), so whoever sees the count sees the line.
        long now = Time.GetTimestamp();
        if (_lastAcceptFailureLog == long.MinValue || Time.GetElapsedTime(_lastAcceptFailureLog, now) >= TimeSpan.FromSeconds(1))
        {
            _lastAcceptFailureLog = now;
            TransportLog.AcceptFailed(Logger, errno, Index, _acceptFailures + 1);
        }

        Interlocked.Increment(ref _acceptFailures);

        return IsOutOfResources(errno);
    }

    /// <summary>True for the accept errors that retrying at once would repeat: out of descriptors or memory.</summary>
    protected static bool IsOutOfResources(int errno) => errno is Libc.EMFILE or Libc.ENFILE or Libc.ENOBUFS or Libc.ENOMEM;

    /// <summary>Runs <paramref name="action"/> on the loop after <paramref name="delay"/> (the accept back-off).</summary>
    protected void PostAfter(TimeSpan delay, Action<object?> action, object? state)
    {
        ITimer? timer = null;
        timer = Time.CreateTimer(_ =>
        {
            Post(action, state);
            timer?.Dispose();
        }, null, delay, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Runs what other threads queued. Call before waiting: it arms the wake-up first, so nothing queued is missed.</summary>
    protected void RunQueued()
    {
        Interlocked.Exchange(ref _awake, 0);
        while (_queue.TryDequeue(out Work work))
        {
            try
            {
                work.Action(work.State);
            }
            catch (Exception ex)
            {
                // Pipe continuations keep their exceptions in their tasks; anything else that throws must not end
                // the loop and every connection on it.
                TransportLog.WorkFailed(Logger, ex, Index);
            }
        }
    }

    /// <summary>
    /// <see cref="Wake"/>, unless the loop has ended and its descriptors are closed or about to be: a closed number may
    /// be given to any descriptor opened since, which a wake-up would then write to. Under the lock, so the loop cannot
    /// close them while a wake-up is being written.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WakeUnlessEnded()
    {
        lock (_wakeLock)
        {
            if (!_ended)
            {
                Wake();
            }
        }
    }

    /// <summary>Call when a wait returns: work queued from now on is run before the next wait, without a wake-up.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    protected void MarkAwake() => Volatile.Write(ref _awake, 1);

    protected abstract void Run();

    protected abstract void Wake();

    internal abstract void ReceiveChanged(TransportConnection connection);

    internal abstract ValueTask<int> SendAsync(TransportConnection connection, ReadOnlySequence<byte> data);

    protected abstract void Closing(TransportConnection connection);

    /// <summary>
    /// Closes a connection's descriptor once nothing the kind prepared still names it by number: the number may be
    /// given to another socket as soon as it is closed.
    /// </summary>
    protected abstract void CloseDescriptor(int fd);

    /// <summary>Stops accepting and closes this loop's listening socket; on the loop.</summary>
    protected internal abstract void StopAccepting();

    /// <summary>Closes the kind's own descriptors (epoll, eventfd, ring); on the loop, as it ends.</summary>
    protected abstract void ReleaseResources();

    private void ThreadMain()
    {
        t_current = this;
        try
        {
            Run();
        }
        catch (Exception ex)
        {
            TransportLog.LoopFailed(Logger, ex, Index);
        }

        try
        {
            StopAccepting();
            foreach (TransportConnection? connection in _connections)
            {
                connection?.Abort(new ConnectionAbortedException("The transport is shutting down."));
            }

            // What the aborts queued (the applications' pipe continuations) still runs here.
            RunQueued();
            lock (_wakeLock)
            {
                _ended = true;
            }

            // Work queued since the last look goes to the pool, as Post sends what comes later.
            Interlocked.MemoryBarrier();
            DrainToThreadPool();
            ReleaseResources();
        }
        catch (Exception ex)
        {
            TransportLog.LoopFailed(Logger, ex, Index);
        }
        finally
        {
            t_current = null;
            _stopped.TrySetResult();
        }
    }

    private void DrainToThreadPool()
    {
        while (_queue.TryDequeue(out Work work))
        {
            System.Threading.ThreadPool.UnsafeQueueUserWorkItem(work.Action, work.State, preferLocal: false);
        }
    }

    private readonly record struct Work(Action<object?> Action, object? State);

    private sealed class NextTurnScheduler(TransportLoop loop) : PipeScheduler
    {
        public override void Schedule(Action<object?> action, object? state)
        {
            ArgumentNullException.ThrowIfNull(action);
            loop.Post(action, state);
        }
    }
}
