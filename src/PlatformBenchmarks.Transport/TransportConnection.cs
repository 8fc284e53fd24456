using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http.Features;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// One accepted socket, owned by one <see cref="TransportLoop"/> for its whole life, whichever kind of loop that is.
/// Its state below is touched only on the loop thread; the application reaches it through the pipes (thread-safe) and
/// through <see cref="Abort(ConnectionAbortedException)"/> and <see cref="DisposeAsync"/>, which post to the loop.
///
/// The close order. When the application completes its output, the send loop sends what is queued, then
/// shutdown(SHUT_WR) on the loop's next turn (the peer sees the FIN right after the last response), while the input
/// stays readable; not when the connection closed in the meantime or the peer closed first, as close(2) sends the FIN.
/// The descriptor is closed once the application is done with the connection too (it completed the input, or Kestrel
/// disposed the connection). An abort closes at once with SO_LINGER 0, so the peer gets a reset. Whatever closes it,
/// the output's blocks go back to the pool only once no send the kernel holds reads them.
/// </summary>
internal sealed partial class TransportConnection : ConnectionContext,
    IConnectionIdFeature, IConnectionTransportFeature, IConnectionItemsFeature, IConnectionLifetimeFeature,
    IConnectionEndPointFeature, ITransportLoopFeature
{
    private static readonly CancellationTokenSource s_closed = CreateCanceled();
    private static readonly TaskCompletionSource s_closedSignal = CreateCompleted();
    private static long s_lastId;

    private readonly TransportLoop _loop;
    private readonly Pipe _input;
    private readonly Pipe _output;
    // ConnectionClosed's source, made on first read (the HTTP/1.1 engine never reads it, TLS does); s_closed once the
    // connection has closed, so a read after the close gets a token already canceled.
    private CancellationTokenSource? _closedSource;
    // What DisposeAsync waits on for the close, made only when it has to wait: s_closedSignal once the connection has
    // closed, which it mostly has by then, as the close follows the dispose on the loop in the same turn.
    private TaskCompletionSource? _closedSignal;
    private Action? _resumeReceiving;
    private string? _id;
    private IDictionary<object, object?>? _items;

    // The peer's address as accept gave it, made an IPEndPoint only when someone asks: mostly nobody does.
    private readonly Libc.SocketAddress _remoteAddress;
    private EndPoint? _remote;
    private bool _remoteMade;

    // Loop-thread state.
    private ValueTask<FlushResult> _pausedFlush;
    private bool _inputCompleted;
    private bool _readerCompleted;
    private bool _sendDone;
    private bool _peerClosed;
    private bool _disposeRequested;
    private bool _closed;

    public TransportConnection(TransportLoop loop, int fd, in Libc.SocketAddress remote, EndPoint? local)
    {
        _loop = loop;
        Fd = fd;
        _remoteAddress = remote;
        LocalEndPoint = local;
        _input = new Pipe(loop.InputOptions);
        _output = new Pipe(loop.OutputOptions);
        Transport = new DuplexPipe(_input.Reader, _output.Writer);
    }

    /// <summary>The socket; -1 once closed. Loop thread only.</summary>
    internal int Fd { get; private set; }

    /// <summary>Whether the kind should be receiving for this connection (false while back-pressured, after EOF, once closed).</summary>
    internal bool WantsReceive { get; private set; }

    internal bool IsClosed => _closed;

    /// <summary>
    /// What the loop has registered for this connection, 0 for nothing: epoll, the events the descriptor is in the
    /// epoll set for; io_uring, the number of the slot its operations name, plus one. Loop thread only.
    /// </summary>
    internal uint LoopRegistration { get; set; }

    public override string ConnectionId
    {
        get => _id ??= Interlocked.Increment(ref s_lastId).ToString("x", System.Globalization.CultureInfo.InvariantCulture);
        set => _id = value;
    }

    public override IFeatureCollection Features => this;

    /// <summary>The peer's address: null for a family other than IPv4 and IPv6. Made on first read, from any thread.</summary>
    public override EndPoint? RemoteEndPoint
    {
        get
        {
            if (!Volatile.Read(ref _remoteMade))
            {
                // Two first reads at once each make an equal value; either may stay.
                _remote = SocketAddresses.ToEndPoint(in _remoteAddress);
                Volatile.Write(ref _remoteMade, true);
            }

            return _remote;
        }

        set
        {
            _remote = value;
            Volatile.Write(ref _remoteMade, true);
        }
    }

    /// <summary>Canceled, on the thread pool, once the connection has closed.</summary>
    public override CancellationToken ConnectionClosed
    {
        get
        {
            CancellationTokenSource? source = Volatile.Read(ref _closedSource);
            if (source is null)
            {
                var created = new CancellationTokenSource();
                source = Interlocked.CompareExchange(ref _closedSource, created, null) ?? created;
            }

            return source.Token;
        }

        set => throw new NotSupportedException("The transport owns the connection's lifetime token.");
    }

    public override IDictionary<object, object?> Items
    {
        get => _items ??= new Dictionary<object, object?>();
        set => _items = value;
    }

    public override IDuplexPipe Transport { get; set; }

    int ITransportLoopFeature.LoopIndex => _loop.Index;

    int ITransportLoopFeature.LoopThreadId => _loop.ThreadId;

    PipeScheduler ITransportLoopFeature.NextTurn => _loop.NextTurn;

    /// <summary>On the loop, once accepted: start receiving and start the send loop.</summary>
    internal void Start()
    {
        WantsReceive = true;
        _loop.ReceiveChanged(this);
        _ = SendLoopAsync();
    }

    /// <summary>Where the kind receives into: at least half a block of the input pipe's pinned memory.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal Memory<byte> GetReceiveMemory() => _input.Writer.GetMemory(PinnedBlockMemoryPool.BlockSize / 2);

    /// <summary>
    /// The kind received: <paramref name="result"/> bytes into <see cref="GetReceiveMemory"/>, 0 for end of stream, or a
    /// negative errno. Returns whether to keep receiving now (false when the application's input is full, is gone, or
    /// the stream ended). The flush may run the application inline, which may even close the connection.
    /// </summary>
    internal bool OnReceived(int result)
    {
        if (result > 0)
        {
            _input.Writer.Advance(result);
            return FlushReceived();
        }

        if (result == 0)
        {
            // The peer half-closed: the application reads to the end of what it sent, and may still answer.
            _peerClosed = true;
            CompleteInput(null);
        }
        else
        {
            InputFailed(result);
        }

        return false;
    }

    /// <summary>
    /// A receive failed. A reset ends the input as the end of the stream does: the peer's abortive close is how load
    /// generators and browsers routinely drop a connection, and an exception there would be thrown through every
    /// layer of the application once per connection (docs/decisions/0017-connection-cost.md). What was received
    /// before it is still read; a body or frame it cut short is the protocol's own truncation error, and a send after
    /// it fails with the socket's error. Any other failure completes the input with <see cref="ConnectionResetException"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void InputFailed(int result)
    {
        TransportLog.ConnectionError(_loop.Logger, ConnectionId, -result);
        if (result == -Libc.ECONNRESET)
        {
            _peerClosed = true;
            CompleteInput(null);
        }
        else
        {
            CompleteInput(new ConnectionResetException($"The connection failed (errno {-result})."));
        }
    }

    /// <summary>
    /// The kind received <paramref name="data"/> into memory of its own (io_uring's provided buffers): copied into the
    /// input pipe, then as <see cref="OnReceived(int)"/>.
    /// </summary>
    internal bool OnReceived(ReadOnlySpan<byte> data)
    {
        _input.Writer.Write(data);
        return FlushReceived();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool FlushReceived()
    {
        ValueTask<FlushResult> flush = _input.Writer.FlushAsync();
        if (!flush.IsCompletedSuccessfully)
        {
            PauseReceiving(flush);
            return false;
        }

        if (flush.Result.IsCompleted)
        {
            ReaderCompleted();
            return false;
        }

        return WantsReceive;
    }

    /// <summary>
    /// The application's input is over its pause threshold: stop receiving (the peer's window fills, so it stops
    /// sending) until the application has consumed down to the resume threshold.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void PauseReceiving(ValueTask<FlushResult> flush)
    {
        WantsReceive = false;
        _loop.ReceiveChanged(this);
        _pausedFlush = flush;
        flush.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(_resumeReceiving ??= ResumeReceiving);
    }

    // The input pipe's writer scheduler is the loop: this runs there.
    private void ResumeReceiving()
    {
        bool completed;
        try
        {
            completed = _pausedFlush.Result.IsCompleted;
        }
        catch (InvalidOperationException)
        {
            completed = true;
        }

        _pausedFlush = default;
        if (_closed || _inputCompleted)
        {
            return;
        }

        if (completed)
        {
            ReaderCompleted();
            return;
        }

        WantsReceive = true;
        _loop.ReceiveChanged(this);
    }

    private void ReaderCompleted()
    {
        // The application will read no more: stop receiving, and close once the sending side is done too.
        _readerCompleted = true;
        CompleteInput(null);
        TryClose();
    }

    private void CompleteInput(Exception? error)
    {
        if (_inputCompleted)
        {
            return;
        }

        _inputCompleted = true;
        if (WantsReceive)
        {
            WantsReceive = false;
            _loop.ReceiveChanged(this);
        }

        _input.Writer.Complete(error);
    }

    public override void Abort(ConnectionAbortedException abortReason)
    {
        _loop.Schedule(static s =>
        {
            (TransportConnection? connection, ConnectionAbortedException? reason) = ((TransportConnection, ConnectionAbortedException))s!;
            connection.Close(reason);
        }, (this, abortReason));
    }

    public override void Abort() => Abort(new ConnectionAbortedException("The connection was aborted by the application."));

    /// <summary>
    /// The application is done with the connection: whatever it left in the output is sent, then the FIN, then the
    /// socket is closed. Completes once it is.
    /// </summary>
    public override async ValueTask DisposeAsync()
    {
        // Completing the pipes' application ends is idempotent, and the send loop learns of the output's end from it.
        await _input.Reader.CompleteAsync();
        await _output.Writer.CompleteAsync();
        _loop.Schedule(static s =>
        {
            var connection = (TransportConnection)s!;
            connection._disposeRequested = true;
            connection.TryClose();
        }, this);
        TaskCompletionSource? closed = Volatile.Read(ref _closedSignal);
        if (closed is null)
        {
            var created = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            closed = Interlocked.CompareExchange(ref _closedSignal, created, null) ?? created;
        }

        if (!closed.Task.IsCompleted)
        {
            try
            {
                await closed.Task.WaitAsync(_loop.Listener.Options.DrainTimeout, _loop.Time);
            }
            catch (TimeoutException)
            {
                Abort(new ConnectionAbortedException("The peer did not take the rest of the output in time."));
                await closed.Task;
            }
        }

        await base.DisposeAsync();
    }

    /// <summary>On the loop: closes gracefully once everything was sent and the application is done reading.</summary>
    private void TryClose()
    {
        if (!_closed && _sendDone && (_disposeRequested || _readerCompleted))
        {
            Close(null);
        }
    }

    /// <summary>On the loop: closes the socket; with a reason, it is an abort and the peer gets a reset.</summary>
    private void Close(ConnectionAbortedException? abort)
    {
        if (_closed)
        {
            return;
        }

        if (abort is not null)
        {
            Libc.SetResetOnClose(Fd);
        }

        _loop.Forget(this);
        _closed = true;
        Fd = -1;
        WantsReceive = false;
        CompleteInput(abort);
        if (!_sendDone)
        {
            // Wakes the send loop wherever it waits: for the application's output, or for room to send. A send the
            // kernel holds (io_uring) is not woken here: the kernel may still read its blocks, so the send loop hands
            // them back to the pool only once that send's completion (or its cancel's) has been reaped.
            if (!_kernelHoldsSend)
            {
                CompleteSendWait(-Libc.ECONNABORTED);
            }

            _output.Reader.CancelPendingRead();
        }

        // Nobody read the token yet: no callback to run, and no work for the pool.
        CancellationTokenSource? closed = Interlocked.Exchange(ref _closedSource, s_closed);
        if (closed is not null)
        {
            ThreadPool.UnsafeQueueUserWorkItem(static s => ((CancellationTokenSource)s!).Cancel(), closed, preferLocal: false);
        }

        Interlocked.Exchange(ref _closedSignal, s_closedSignal)?.TrySetResult();
    }

    private static TaskCompletionSource CreateCompleted()
    {
        var source = new TaskCompletionSource();
        source.SetResult();
        return source;
    }

    private static CancellationTokenSource CreateCanceled()
    {
        var source = new CancellationTokenSource();
        source.Cancel();
        return source;
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
