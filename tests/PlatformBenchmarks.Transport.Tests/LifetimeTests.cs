using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>Unbinding, disposing, and the descriptors the transport leaves behind (none).</summary>
[Collection(DescriptorCounting.Name)]
public abstract class LifetimeTests(TransportKind kind)
{
    [Fact]
    public async Task UnbindStopsAcceptingWhileOpenConnectionsGoOn()
    {
        await using TestServer server = await TestServer.StartEchoAsync(kind);
        using Socket open = await server.ConnectAsync();
        await open.SendAllAsync("before"u8.ToArray());
        Assert.Equal("before"u8.ToArray(), await open.ReceiveExactlyAsync(6));

        await server.Listener.UnbindAsync();

        SocketException refused = await Assert.ThrowsAsync<SocketException>(() => server.ConnectAsync());
        Assert.Equal(SocketError.ConnectionRefused, refused.SocketErrorCode);
        await open.SendAllAsync("after"u8.ToArray());
        Assert.Equal("after"u8.ToArray(), await open.ReceiveExactlyAsync(5));
    }

    [Fact]
    public async Task DisposeEndsConnectionsStillOpenAndTheirApplicationsSeeTheAbort()
    {
        var aborted = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        var reading = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            try
            {
                reading.TrySetResult();
                ReadResult result = await connection.Transport.Input.ReadAsync();
                aborted.TrySetResult(result.IsCompleted);
            }
            catch (ConnectionAbortedException)
            {
                aborted.TrySetResult(true);
            }
        });

        using Socket client = await server.ConnectAsync();
        await reading.Task.WaitAsync(SocketExtensions.Patience);
        await server.DisposeAsync();

        Assert.True(await aborted.Task.WaitAsync(SocketExtensions.Patience));
        SocketException reset = await Assert.ThrowsAsync<SocketException>(() => client.ReceiveToEndAsync());
        Assert.Equal(SocketError.ConnectionReset, reset.SocketErrorCode);
    }

    [Fact]
    public async Task OpenDescriptorsAreTheSameBeforeAndAfterManyConnectionCycles()
    {
        // One whole cycle first, so what the process sets up once (loaded assemblies, the runtime's socket engine on the
        // client side, timers) is there before counting.
        await CycleAsync(rounds: 1, perRound: 1);
        int before = OpenDescriptors();
        await CycleAsync(rounds: 20, perRound: 25);
        Assert.Equal(before, OpenDescriptors());
    }

    private async Task CycleAsync(int rounds, int perRound)
    {
        Socket[] leftOpen;
        await using (TestServer server = await TestServer.StartEchoAsync(kind))
        {
            for (int round = 0; round < rounds; round++)
            {
                Socket[] clients = await Task.WhenAll(Enumerable.Range(0, perRound).Select(_ => server.ConnectAsync()));
                foreach (Socket client in clients)
                {
                    await client.SendAllAsync("ping"u8.ToArray());
                    Assert.Equal("ping"u8.ToArray(), await client.ReceiveExactlyAsync(4));
                    if (round % 2 == 0)
                    {
                        client.Shutdown(SocketShutdown.Send);
                        Assert.Empty(await client.ReceiveToEndAsync());
                    }

                    client.Dispose();
                }
            }

            // Left open on purpose: disposing the listener must close these too.
            leftOpen = await Task.WhenAll(Enumerable.Range(0, 10).Select(_ => server.ConnectAsync()));
        }

        foreach (Socket client in leftOpen)
        {
            client.Dispose();
        }
    }

    [Fact]
    public async Task TheFactoryClaimsIpEndPointsOnly()
    {
        var factory = new LinuxTransportFactory(kind is TransportKind.IoUring ? TransportKind.IoUring : TransportKind.Epoll, new LinuxTransportOptions(), NullLoggerFactory.Instance, new FakeTimeProvider());
        Assert.True(factory.CanBind(new IPEndPoint(IPAddress.Loopback, 0)));
        Assert.True(factory.CanBind(new IPEndPoint(IPAddress.IPv6Any, 0)));
        Assert.False(factory.CanBind(new UnixDomainSocketEndPoint("/tmp/x.sock")));
        await Assert.ThrowsAsync<NotSupportedException>(async () => await factory.BindAsync(new UnixDomainSocketEndPoint("/tmp/x.sock")));
    }

    private static int OpenDescriptors() => Directory.GetFiles("/proc/self/fd").Length;
}

[Collection(DescriptorCounting.Name)]
public sealed class LifetimeTestsOnIoUring() : LifetimeTests(TransportKind.IoUring);

[Collection(DescriptorCounting.Name)]
public sealed class LifetimeTestsOnEpoll() : LifetimeTests(TransportKind.Epoll);

/// <summary>Tests that count the process's descriptors run alone, after the others.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class DescriptorCounting
{
    public const string Name = "Descriptor counting";
}
