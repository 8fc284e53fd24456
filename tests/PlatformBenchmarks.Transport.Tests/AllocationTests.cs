using System.Net.Sockets;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

public abstract class AllocationTests(TransportKind kind)
{
    [Fact]
    public async Task SteadyStateRoundTripsAllocateNothingOnTheLoopThread()
    {
        // The loop thread runs the receive, the application (inline, scheduled by the pipes) and the send: what it
        // allocates over many requests is what a request costs there. Measured on that thread alone, so the client's
        // own allocations do not count.
        await using TestServer server = await TestServer.StartEchoAsync(kind, new LinuxTransportOptions { ThreadCount = 1 });
        TransportLoop loop = server.Listener.Loops[0];
        using Socket client = await server.ConnectAsync();
        byte[] request = SocketExtensions.Pattern(200);
        byte[] response = new byte[request.Length];

        async Task RoundTripsAsync(int count)
        {
            for (int i = 0; i < count; i++)
            {
                await client.SendAllAsync(request);
                int filled = 0;
                while (filled < response.Length)
                {
                    filled += await client.ReceiveAsync(response.AsMemory(filled));
                }
            }
        }

        await RoundTripsAsync(200);
        long before = await AllocatedOnAsync(loop);
        await RoundTripsAsync(2000);
        long after = await AllocatedOnAsync(loop);

        Assert.Equal(request, response);
        // A few hundred bytes of slack for the measurement itself and one-off growth (a queue segment), against the
        // hundreds of kilobytes that even 100 bytes per request would add up to.
        Assert.InRange(after - before, 0, 2048);
    }

    [Fact]
    public async Task AConnectionAllocatesLittleOnTheLoopThread()
    {
        // Accept, the first read, the echo, the peer's close (half of them a reset) and ours, over many connections: what the loop thread
        // allocates per connection (the connection, its two pipes and the send loop's state) is what a reconnect
        // costs there: about 1.5 KB when this was written, so the bound leaves a fifth for the runtime's own variation and
        // fails on anything per connection added to the path, such as a collection or an exception.
        await using TestServer server = await TestServer.StartEchoAsync(kind, new LinuxTransportOptions { ThreadCount = 1 });
        TransportLoop loop = server.Listener.Loops[0];

        async Task ConnectionsAsync(int count)
        {
            for (int i = 0; i < count; i++)
            {
                using Socket client = await server.ConnectAsync();
                await client.SendAllAsync("x"u8.ToArray());
                Assert.Equal("x"u8.ToArray(), await client.ReceiveExactlyAsync(1));
                if (i % 2 == 0)
                {
                    client.Shutdown(SocketShutdown.Send);
                    Assert.Empty(await client.ReceiveToEndAsync());
                }
                else
                {
                    // The abortive close of load generators that reconnect (SO_LINGER 0).
                    client.LingerState = new LingerOption(true, 0);
                }
            }

            await server.ConnectionsDoneAsync();
        }

        await ConnectionsAsync(50);
        long before = await AllocatedOnAsync(loop);
        await ConnectionsAsync(500);
        long after = await AllocatedOnAsync(loop);

        Assert.InRange((after - before) / 500, 0, 1800);
    }

    private static async Task<long> AllocatedOnAsync(TransportLoop loop)
    {
        long allocated = 0;
        await loop.InvokeAsync(() => allocated = GC.GetAllocatedBytesForCurrentThread());
        return allocated;
    }
}

public sealed class AllocationTestsOnIoUring() : AllocationTests(TransportKind.IoUring);

public sealed class AllocationTestsOnEpoll() : AllocationTests(TransportKind.Epoll);
