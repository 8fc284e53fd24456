using System.Net;
using System.Threading.Channels;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging;
using PlatformBenchmarks.Transport.Epoll;
using PlatformBenchmarks.Transport.Interop;
using PlatformBenchmarks.Transport.IoUring;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// One bound endpoint: <see cref="LinuxTransportOptions.EffectiveThreadCount"/> loops, each with its own SO_REUSEPORT
/// listening socket on the endpoint, which no other socket listens on (<see cref="ListenSocket"/>). Connections accepted by the loops are handed out by <see cref="AcceptAsync"/>.
/// </summary>
internal sealed class LinuxConnectionListener : IConnectionListener
{
    private readonly Channel<TransportConnection> _accepted = Channel.CreateUnbounded<TransportConnection>(new UnboundedChannelOptions
    {
        SingleReader = true,
        SingleWriter = false,
    });

    private TransportLoop[] _loops = [];
    private TransportMetrics? _metrics;
    private Task? _unbound;
    private Task? _disposed;

    private LinuxConnectionListener(LinuxTransportOptions options, ILogger logger, TimeProvider time)
    {
        Options = options;
        Logger = logger;
        Time = time;
        EndPoint = null!;
    }

    public EndPoint EndPoint { get; private set; }

    public LinuxTransportOptions Options { get; }

    public ILogger Logger { get; }

    public TimeProvider Time { get; }

    internal IReadOnlyList<TransportLoop> Loops => _loops;

    /// <summary>The loops' diagnostics, from bind to dispose.</summary>
    internal TransportMetrics? Metrics => _metrics;

    public static LinuxConnectionListener Bind(TransportKind kind, IPEndPoint endPoint, LinuxTransportOptions options, ILogger logger, TimeProvider time)
    {
        var listener = new LinuxConnectionListener(options, logger, time);
        int count = options.EffectiveThreadCount;
        int[] fds = ListenSocket.CreateGroup(endPoint, count, logger, out IPEndPoint bound);
        listener.EndPoint = bound;
        var loops = new List<TransportLoop>(count);
        try
        {
            for (int i = 0; i < count; i++)
            {
                loops.Add(CreateLoop(kind, listener, i, fds[i]));
                fds[i] = -1;
            }
        }
        catch
        {
            foreach (int fd in fds)
            {
                if (fd >= 0)
                {
                    _ = Libc.Close(fd);
                }
            }

            foreach (TransportLoop loop in loops)
            {
                loop.Start();
                _ = loop.StopAsync();
            }

            throw;
        }

        listener._loops = [.. loops];
        listener._metrics = new TransportMetrics(listener._loops, bound.Port);
        foreach (TransportLoop loop in listener._loops)
        {
            loop.Start();
        }

        return listener;
    }

    /// <summary>The one place a kind's loop is made; another kind adds its case here.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1859", Justification = "Returns whichever kind is configured.")]
    private static TransportLoop CreateLoop(TransportKind kind, LinuxConnectionListener listener, int index, int listenFd) => kind switch
    {
        TransportKind.Epoll => new EpollLoop(listener, index, listenFd),
        TransportKind.IoUring => new IoUringLoop(listener, index, listenFd),
        _ => throw new NotSupportedException($"Transport kind {kind} has no loop."),
    };

    public async ValueTask<ConnectionContext?> AcceptAsync(CancellationToken cancellationToken = default)
    {
        try
        {
            while (await _accepted.Reader.WaitToReadAsync(cancellationToken))
            {
                if (_accepted.Reader.TryRead(out TransportConnection? connection))
                {
                    return connection;
                }
            }
        }
        catch (OperationCanceledException)
        {
        }

        return null;
    }

    internal bool Publish(TransportConnection connection) => _accepted.Writer.TryWrite(connection);

    /// <summary>Stops accepting: every loop closes its listening socket. Connections already accepted go on.</summary>
    public ValueTask UnbindAsync(CancellationToken cancellationToken = default) => new(_unbound ??= UnbindCoreAsync());

    /// <summary>Aborts every connection still open, ends the loops and closes their descriptors.</summary>
    public ValueTask DisposeAsync() => new(_disposed ??= DisposeCoreAsync());

    private async Task UnbindCoreAsync()
    {
        await Task.WhenAll(_loops.Select(loop => loop.InvokeAsync(loop.StopAccepting)));
        _accepted.Writer.TryComplete();
        // Accepted but never handed out: nobody else will close them.
        while (_accepted.Reader.TryRead(out TransportConnection? connection))
        {
            await connection.DisposeAsync();
        }
    }

    private async Task DisposeCoreAsync()
    {
        await UnbindAsync();
        await Task.WhenAll(_loops.Select(loop => loop.StopAsync()));
        _metrics?.Dispose();
    }
}
