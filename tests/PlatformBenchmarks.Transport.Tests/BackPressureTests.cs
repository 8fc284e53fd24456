using System.Buffers;
using System.Net.Sockets;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

public abstract class BackPressureTests(TransportKind kind)
{
    [Fact]
    public async Task AClientThatSendsForeverAndNeverReadsCannotGrowTheServersMemory()
    {
        // The echo's output fills (its flush waits), so it stops reading; the input fills, so the loop stops receiving;
        // the kernel's buffers fill, so the client's sends stop completing. The pools stop growing on the way.
        var options = new TransportOptions { ThreadCount = 1, MaxReadBufferSize = 64 * 1024, MaxWriteBufferSize = 64 * 1024 };
        await using TestServer server = await TestServer.StartEchoAsync(kind, options);
        using Socket client = await server.ConnectAsync();
        client.ReceiveBufferSize = 64 * 1024;
        byte[] chunk = new byte[64 * 1024];
        long sent = 0;
        while (true)
        {
            using var stalled = new CancellationTokenSource(TimeSpan.FromSeconds(3));
            try
            {
                sent += await client.SendAsync(chunk, SocketFlags.None, stalled.Token);
            }
            catch (OperationCanceledException)
            {
                break;
            }

            Assert.True(sent < 256L * 1024 * 1024, "The server kept reading from a client that never reads.");
        }

        // Pipes at their thresholds plus the blocks in hand: a few slabs of 128 KiB, however much the client offered.
        Assert.InRange(server.SlabCount, 1, 8);
    }

    [Fact]
    public async Task AConnectionWhosePeerNeverTakesTheRestOfTheOutputIsResetAfterTheDrainTimeout()
    {
        // The application writes far more than the socket buffers hold, completes, and is done; the peer never reads.
        var options = new TransportOptions { ThreadCount = 1, DrainTimeout = TimeSpan.FromMilliseconds(200) };
        var disposed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            // Written without a flush, so the application never waits: 32 MiB, well over what the kernel buffers.
            byte[] chunk = new byte[64 * 1024];
            for (int i = 0; i < 512; i++)
            {
                connection.Transport.Output.Write(chunk);
            }

            await connection.Transport.Output.CompleteAsync();
            await connection.DisposeAsync();
            disposed.TrySetResult();
        }, options);

        using Socket client = await server.ConnectAsync();
        client.ReceiveBufferSize = 4096;
        await disposed.Task.WaitAsync(SocketExtensions.Patience);

        // What the kernel buffered arrives, then the reset.
        await Assert.ThrowsAsync<SocketException>(() => client.ReceiveToEndAsync());
        Assert.Equal(0, server.ConnectionCount);
    }
}

public sealed class BackPressureTestsOnIoUring() : BackPressureTests(TransportKind.IoUring);

public sealed class BackPressureTestsOnEpoll() : BackPressureTests(TransportKind.Epoll);
