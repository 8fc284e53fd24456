using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Transport.Interop;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>
/// The port is the server's alone: binding where any other socket listens fails as Kestrel's own transport fails
/// (AddressInUseException), whatever options that socket used, and nothing of the refused bind stays in the kernel.
/// </summary>
public abstract class PortOwnershipTests(TransportKind kind)
{
    [Fact]
    public async Task APortAPlainListenerHoldsIsRefusedAsAddressInUse()
    {
        using var occupant = new TcpListener(IPAddress.Loopback, 0);
        occupant.Start();

        await Assert.ThrowsAsync<AddressInUseException>(() => BindAsync(((IPEndPoint)occupant.LocalEndpoint).Port));
    }

    [Fact]
    public async Task APortASoReusePortListenerOfTheSameUserHoldsIsRefusedAsAddressInUse()
    {
        using Socket occupant = ListenWithReusePort(new IPEndPoint(IPAddress.Loopback, 0));
        int port = ((IPEndPoint)occupant.LocalEndPoint!).Port;

        await Assert.ThrowsAsync<AddressInUseException>(() => BindAsync(port));

        Assert.Equal(occupant.LocalEndPoint, Assert.Single(ListenersOn(port)).EndPoint);
    }

    [Fact]
    public async Task AnyAddressOnAPortAListenerHoldsOnLoopbackIsRefused()
    {
        // A listener on a more specific address would take that address's connections from a wildcard one.
        using Socket occupant = ListenWithReusePort(new IPEndPoint(IPAddress.Loopback, 0));
        int port = ((IPEndPoint)occupant.LocalEndPoint!).Port;

        await Assert.ThrowsAsync<AddressInUseException>(() => BindAsync(port, IPAddress.Any));
    }

    [Fact]
    public async Task ASecondTransportOnThePortIsRefusedAndTheFirstKeepsEveryConnection()
    {
        await using TestServer first = await TestServer.StartEchoAsync(kind);

        await Assert.ThrowsAsync<AddressInUseException>(() => BindAsync(first.Port));

        Assert.Equal(first.Listener.Loops.Count, ListenersOn(first.Port).Count);
        Socket[] clients = await Task.WhenAll(Enumerable.Range(0, 16).Select(_ => first.ConnectAsync()));
        try
        {
            // Each answers only if the first accepted it: one queued on a socket of the second would wait forever.
            await Task.WhenAll(clients.Select(async client =>
            {
                await client.SendAllAsync("ping"u8.ToArray());
                Assert.Equal("ping"u8.ToArray(), await client.ReceiveExactlyAsync(4));
            }));
            Assert.Equal(16, first.ConnectionCount);
        }
        finally
        {
            foreach (Socket client in clients)
            {
                client.Dispose();
            }
        }
    }

    private Task<IConnectionListener> BindAsync(int port, IPAddress? address = null)
    {
        var factory = new LinuxTransportFactory(TransportChooser.Choose(kind).Kind, new LinuxTransportOptions { ThreadCount = 2 }, NullLoggerFactory.Instance, new FakeTimeProvider());
        return factory.BindAsync(new IPEndPoint(address ?? IPAddress.Loopback, port)).AsTask();
    }

    internal static Socket ListenWithReusePort(IPEndPoint endPoint)
    {
        var socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        socket.SetRawSocketOption(Libc.SOL_SOCKET, Libc.SO_REUSEPORT, BitConverter.GetBytes(1));
        socket.Bind(endPoint);
        socket.Listen();
        return socket;
    }

    internal static List<TcpListenerEntry> ListenersOn(int port)
    {
        var listeners = new List<TcpListenerEntry>();
        Assert.True(SocketDiagnostics.TryListTcpListeners(listeners, out int errno), $"sock_diag: errno {errno}");
        return listeners.FindAll(listener => listener.EndPoint.Port == port);
    }
}

public sealed class PortOwnershipTestsOnIoUring() : PortOwnershipTests(TransportKind.IoUring);

public sealed class PortOwnershipTestsOnEpoll() : PortOwnershipTests(TransportKind.Epoll);

/// <summary>The check after the binds, which finds a socket that joined the group between the first check and them.</summary>
public class ListenSocketCheckTests
{
    [Fact]
    public unsafe void TheKernelListsAListenerWithTheCookieItsDescriptorHas()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        ulong cookie;
        uint length = sizeof(ulong);

        Assert.Equal(0, Libc.GetSockOpt((int)listener.Server.Handle, Libc.SOL_SOCKET, Libc.SO_COOKIE, &cookie, &length));

        TcpListenerEntry listed = Assert.Single(PortOwnershipTests.ListenersOn(port));
        Assert.Equal(cookie, listed.Cookie);
        Assert.Equal(listener.LocalEndpoint, listed.EndPoint);
    }

    [Fact]
    public void AGroupAloneOnItsPortPassesTheCheckWithoutAWarning()
    {
        var logger = new RecordingLogger();
        int[] fds = ListenSocket.CreateGroup(new IPEndPoint(IPAddress.Loopback, 0), 2, logger.CreateLogger("test"), out IPEndPoint bound);
        try
        {
            ListenSocket.EnsureAlone(fds, bound, logger);

            Assert.Empty(logger.Events);
            Assert.Equal(2, PortOwnershipTests.ListenersOn(bound.Port).Count);
        }
        finally
        {
            CloseAll(fds);
        }
    }

    [Fact]
    public void ASoReusePortSocketThatJoinedTheGroupAfterTheBindsFailsTheCheck()
    {
        int[] fds = ListenSocket.CreateGroup(new IPEndPoint(IPAddress.Loopback, 0), 2, NullLogger.Instance, out IPEndPoint bound);
        try
        {
            using Socket joined = PortOwnershipTests.ListenWithReusePort(bound);

            Assert.Throws<AddressInUseException>(() => ListenSocket.EnsureAlone(fds, bound, NullLogger.Instance));
        }
        finally
        {
            CloseAll(fds);
        }
    }

    [Theory]
    [InlineData("127.0.0.1", false, "127.0.0.1", false, true)]
    [InlineData("127.0.0.1", false, "0.0.0.0", false, true)]
    [InlineData("127.0.0.1", false, "127.0.0.2", false, false)]
    [InlineData("0.0.0.0", false, "::", false, true)]
    [InlineData("0.0.0.0", false, "::", true, false)]
    [InlineData("127.0.0.1", false, "::1", false, false)]
    [InlineData("127.0.0.1", false, "::ffff:127.0.0.1", false, true)]
    [InlineData("::1", false, "::", true, true)]
    [InlineData("::1", false, "::2", false, false)]
    public void ListenersOverlapWhereTheKernelWouldCallTheirBindsAConflict(string a, bool aV6Only, string b, bool bV6Only, bool overlap)
    {
        var first = new TcpListenerEntry(1, new IPEndPoint(IPAddress.Parse(a), 8080), aV6Only);
        var second = new TcpListenerEntry(2, new IPEndPoint(IPAddress.Parse(b), 8080), bV6Only);

        Assert.Equal(overlap, ListenSocket.Overlaps(first, second));
        Assert.Equal(overlap, ListenSocket.Overlaps(second, first));
        Assert.False(ListenSocket.Overlaps(first, second with { EndPoint = new IPEndPoint(second.EndPoint.Address, 8081) }));
    }

    private static void CloseAll(int[] fds)
    {
        foreach (int fd in fds)
        {
            _ = Libc.Close(fd);
        }
    }
}
