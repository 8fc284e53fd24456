using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;

namespace PlatformBenchmarks.Transport.Tests.Support;

/// <summary>
/// The transport bound on a loopback ephemeral port, with an application over the connection abstractions only
/// (no Kestrel, no HTTP): each accepted connection runs <c>application</c>, and is disposed after it, as Kestrel does.
/// </summary>
internal sealed class TestServer : IAsyncDisposable
{
    private readonly Task _accepting;
    private readonly List<Task> _connections = [];
    private bool _disposed;

    private TestServer(LinuxConnectionListener listener, Func<ConnectionContext, Task> application)
    {
        Listener = listener;
        _accepting = AcceptAllAsync(application);
    }

    public LinuxConnectionListener Listener { get; }

    public int Port => ((IPEndPoint)Listener.EndPoint).Port;

    public int ConnectionCount => Listener.Loops.Sum(loop => loop.ConnectionCount);

    public int SlabCount => Listener.Loops.Sum(loop => loop.Pool.SlabCount);

    /// <summary>
    /// Binds <paramref name="kind"/>, or the kind the chooser falls back to where the kernel refuses it, so a machine
    /// without io_uring runs those cases on epoll.
    /// </summary>
    /// <param name="time">The transport's clock: unless given, a fake one that stands still, so no timeout fires.</param>
    public static async Task<TestServer> StartAsync(TransportKind kind, Func<ConnectionContext, Task> application, LinuxTransportOptions? options = null, ILoggerFactory? loggers = null, TimeProvider? time = null)
    {
        var factory = new LinuxTransportFactory(TransportChooser.Choose(kind).Kind, options ?? new LinuxTransportOptions { ThreadCount = 2 }, loggers ?? NullLoggerFactory.Instance, time ?? new FakeTimeProvider());
        var listener = (LinuxConnectionListener)await factory.BindAsync(new IPEndPoint(IPAddress.Loopback, 0));
        return new TestServer(listener, application);
    }

    /// <summary>Echoes every byte until the peer half-closes, then completes its output (a FIN).</summary>
    public static Task<TestServer> StartEchoAsync(TransportKind kind, LinuxTransportOptions? options = null, ILoggerFactory? loggers = null, TimeProvider? time = null) =>
        StartAsync(kind, EchoAsync, options, loggers, time);

    public static async Task EchoAsync(ConnectionContext connection)
    {
        PipeReader input = connection.Transport.Input;
        PipeWriter output = connection.Transport.Output;
        try
        {
            while (true)
            {
                ReadResult result = await input.ReadAsync();
                foreach (ReadOnlyMemory<byte> segment in result.Buffer)
                {
                    output.Write(segment.Span);
                }

                input.AdvanceTo(result.Buffer.End);
                FlushResult flush = await output.FlushAsync();
                if (result.IsCompleted || flush.IsCompleted)
                {
                    break;
                }
            }
        }
        catch (ConnectionResetException)
        {
        }
        catch (ConnectionAbortedException)
        {
        }

        await output.CompleteAsync();
        await input.CompleteAsync();
    }

    public async Task<Socket> ConnectAsync()
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(IPAddress.Loopback, Port);
            return socket;
        }
        catch
        {
            // A refused connect would otherwise leave its descriptor to the finalizer, to close in the middle of a later
            // test that counts descriptors.
            socket.Dispose();
            throw;
        }
    }

    /// <summary>Waits until every connection's application has returned and the connection is disposed.</summary>
    public async Task ConnectionsDoneAsync()
    {
        Task[] running;
        lock (_connections)
        {
            running = [.. _connections];
        }

        await Task.WhenAll(running).WaitAsync(TimeSpan.FromSeconds(30));
    }

    public async ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        await Listener.UnbindAsync();
        await Listener.DisposeAsync();
        await _accepting.WaitAsync(TimeSpan.FromSeconds(30));
        await ConnectionsDoneAsync();
    }

    private async Task AcceptAllAsync(Func<ConnectionContext, Task> application)
    {
        while (await Listener.AcceptAsync() is { } connection)
        {
            lock (_connections)
            {
                _connections.Add(RunAsync(connection, application));
            }
        }
    }

    private static async Task RunAsync(ConnectionContext connection, Func<ConnectionContext, Task> application)
    {
        await Task.Yield();
        try
        {
            await application(connection);
        }
        finally
        {
            await connection.DisposeAsync();
        }
    }
}
