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

    [Fact]
    public async Task OnceStoppedALoopNeverWritesItsFormerWakeUpDescriptorWhichAnotherDescriptorMayNowHave()
    {
        // The loop's eventfd is closed as it ends, and its number goes to the next descriptor the process opens (here,
        // this test's own eventfd). A stop or a post that came late and wrote the wake-up there would corrupt that one.
        HashSet<int> before = EventFds();
        TestServer server = await TestServer.StartEchoAsync(kind, new LinuxTransportOptions { ThreadCount = 1 });
        TransportLoop loop = server.Listener.Loops.Single();
        int wakeFd = Assert.Single(EventFds().Except(before));
        await server.DisposeAsync();

        int reused = OpenEventFdNumbered(wakeFd);
        try
        {
            await loop.StopAsync();
            var ran = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
            loop.NextTurn.Schedule(_ => ran.TrySetResult(Environment.CurrentManagedThreadId), null);

            // The work still runs, on the thread pool now that the loop is gone, and nothing was written to the number.
            Assert.NotEqual(loop.ThreadId, await ran.Task.WaitAsync(SocketExtensions.Patience));
            Assert.Equal(0UL, ReadCounter(reused));
        }
        finally
        {
            _ = Interop.Libc.Close(reused);
        }
    }

    private static HashSet<int> EventFds() =>
        [.. new DirectoryInfo("/proc/self/fd").EnumerateFileSystemInfos()
            .Where(link => link.LinkTarget == "anon_inode:[eventfd]")
            .Select(link => int.Parse(link.Name, System.Globalization.CultureInfo.InvariantCulture))];

    /// <summary>Opens eventfds until one is given <paramref name="number"/> (the lowest free number goes first), closing the others.</summary>
    private static int OpenEventFdNumbered(int number)
    {
        var others = new List<int>();
        try
        {
            for (int i = 0; i <= number; i++)
            {
                int fd = Interop.Libc.EventFd(0, Interop.Libc.EFD_CLOEXEC | Interop.Libc.EFD_NONBLOCK);
                Assert.True(fd >= 0, $"eventfd: errno {-Interop.Libc.LastError}");
                if (fd == number)
                {
                    return fd;
                }

                others.Add(fd);
            }

            throw new InvalidOperationException($"Descriptor {number} stayed taken.");
        }
        finally
        {
            foreach (int fd in others)
            {
                _ = Interop.Libc.Close(fd);
            }
        }
    }

    /// <summary>The eventfd's counter: 0 if nothing was written to it (the read finds it empty).</summary>
    private static unsafe ulong ReadCounter(int fd)
    {
        ulong value;
        nint read = Interop.Libc.Read(fd, &value, sizeof(ulong));
        if (read < 0)
        {
            Assert.Equal(Interop.Libc.EAGAIN, -Interop.Libc.LastError);
            return 0;
        }

        return value;
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
