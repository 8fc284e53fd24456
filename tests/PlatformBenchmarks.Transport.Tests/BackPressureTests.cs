using System.Buffers;
using System.IO.Pipelines;
using System.Net.Sockets;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>
/// A peer that never reads cannot make the server hold more than its pipes' thresholds. An echo to such a peer is both
/// cases below in turn: its output fills, so its flush waits and it stops reading; then its input fills.
/// </summary>
public abstract class BackPressureTests(TransportKind kind)
{
    [Fact]
    public async Task AClientThatSendsForeverToAnApplicationThatReadsNothingIsNoLongerReceivedFrom()
    {
        // The input fills to its pause threshold and the loop stops receiving. Nothing consumes the input, so it never
        // resumes: the pool cannot grow however much more the client offers (the kernel's buffers fill, then its sends
        // stop completing).
        var options = new LinuxTransportOptions { ThreadCount = 1, MaxReadBufferSize = 64 * 1024 };
        var accepted = new TaskCompletionSource<TransportConnection>(TaskCreationOptions.RunContinuationsAsynchronously);
        var finished = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            accepted.TrySetResult((TransportConnection)connection);
            await finished.Task;
        }, options);
        using Socket client = await server.ConnectAsync();
        TransportConnection served = await accepted.Task.WaitAsync(SocketExtensions.Patience);
        using var stop = new CancellationTokenSource();
        Task sending = SendUntilStoppedAsync(client, stop.Token);

        await LoopState.WaitUntilAsync(() => !served.WantsReceive);

        Assert.False(served.IsClosed);
        Assert.InRange(server.SlabCount, 1, 4);
        await stop.CancelAsync();
        await sending.WaitAsync(SocketExtensions.Patience);
        finished.TrySetResult();
    }

    [Fact]
    public async Task AnApplicationWritingToAPeerThatNeverReadsWaitsAtTheOutputThreshold()
    {
        // The application flushes for as long as its flushes complete; one waits once the output holds the threshold.
        var options = new LinuxTransportOptions { ThreadCount = 1, MaxWriteBufferSize = 64 * 1024 };
        var heldBack = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            PipeWriter output = connection.Transport.Output;
            byte[] chunk = new byte[16 * 1024];
            while (true)
            {
                output.Write(chunk);
                ValueTask<FlushResult> flush = output.FlushAsync();
                if (!flush.IsCompleted)
                {
                    heldBack.TrySetResult();
                }

                if ((await flush).IsCompleted)
                {
                    break;
                }
            }
        }, options);
        using Socket client = await server.ConnectAsync();
        client.ReceiveBufferSize = 4096;

        await heldBack.Task.WaitAsync(SocketExtensions.Patience);

        Assert.InRange(server.SlabCount, 1, 4);
    }

    [Fact]
    public async Task AConnectionWhosePeerNeverTakesTheRestOfTheOutputIsResetAfterTheDrainTimeout()
    {
        // The application writes far more than the socket buffers hold, completes, and is done; the peer never reads.
        var time = new FakeTimeProvider(DateTimeOffset.UnixEpoch);
        var options = new LinuxTransportOptions { ThreadCount = 1, DrainTimeout = TimeSpan.FromSeconds(5) };
        var draining = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
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
            // The drain's timer is armed by the time the dispose returns unfinished.
            Task dispose = connection.DisposeAsync().AsTask();
            draining.TrySetResult();
            await dispose;
            disposed.TrySetResult();
        }, options, time: time);

        using Socket client = await server.ConnectAsync();
        client.ReceiveBufferSize = 4096;
        await draining.Task.WaitAsync(SocketExtensions.Patience);

        // Short of the timeout the connection stays, however long the test takes to get here: the clock stands still.
        time.Advance(options.DrainTimeout - TimeSpan.FromMilliseconds(1));
        Assert.False(disposed.Task.IsCompleted);
        Assert.Equal(1, server.ConnectionCount);

        time.Advance(TimeSpan.FromMilliseconds(1));
        await disposed.Task.WaitAsync(SocketExtensions.Patience);

        // What the kernel buffered arrives, then the reset; the client's small buffer dropped bytes, so the reset alone
        // may be skipped (see NudgeAsync).
        Task<byte[]> receiving = client.ReceiveToEndAsync();
        await client.NudgeAsync();
        await Assert.ThrowsAsync<SocketException>(() => receiving);
        Assert.Equal(0, server.ConnectionCount);
    }

    private static async Task SendUntilStoppedAsync(Socket client, CancellationToken stop)
    {
        byte[] chunk = new byte[64 * 1024];
        try
        {
            while (true)
            {
                await client.SendAsync(chunk, SocketFlags.None, stop);
            }
        }
        catch (OperationCanceledException)
        {
        }
    }
}

public sealed class BackPressureTestsOnIoUring() : BackPressureTests(TransportKind.IoUring);

public sealed class BackPressureTestsOnEpoll() : BackPressureTests(TransportKind.Epoll);
