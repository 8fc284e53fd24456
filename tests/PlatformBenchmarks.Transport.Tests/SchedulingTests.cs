using System.IO.Pipelines;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

public abstract class SchedulingTests(TransportKind kind)
{
    [Fact]
    public async Task TheApplicationsReadsAndFlushesContinueOnTheConnectionsLoopThread()
    {
        // No hop: the receive, the application's read continuation, its flush and the send all run on the loop.
        var threads = new List<(bool Waited, int Read, int Flushed)>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            System.IO.Pipelines.PipeReader input = connection.Transport.Input;
            while (true)
            {
                ValueTask<System.IO.Pipelines.ReadResult> reading = input.ReadAsync();
                bool waited = !reading.IsCompleted;
                System.IO.Pipelines.ReadResult result = await reading;
                int read = Environment.CurrentManagedThreadId;
                long length = result.Buffer.Length;
                input.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    break;
                }

                await connection.Transport.Output.WriteAsync(new byte[length]);
                threads.Add((waited, read, Environment.CurrentManagedThreadId));
            }

            done.TrySetResult();
        }, new LinuxTransportOptions { ThreadCount = 1 });

        using (Socket client = await server.ConnectAsync())
        {
            for (int i = 0; i < 20; i++)
            {
                await client.SendAllAsync(new byte[100]);
                _ = await client.ReceiveExactlyAsync(100);
            }

            client.Shutdown(SocketShutdown.Send);
            await done.Task.WaitAsync(SocketExtensions.Patience);
        }

        int loopThread = server.Listener.Loops[0].ThreadId;
        Assert.Equal(20, threads.Count);
        // Every read that had to wait continues on the loop, and so does the flush after it. A read whose bytes were
        // there already goes on on the thread it was called from: that can happen only before the application first
        // waited (while it still runs on the thread that started it, if that thread was held up until the client's
        // next request had arrived); from then on it runs on the loop, which cannot receive while it runs it.
        // How many reads come before the first wait depends on how long the starting thread is held up (on a busy
        // machine, several); after it, every read waits, since the loop runs the application instead of receiving.
        Assert.All(threads.Where(t => t.Waited), t => Assert.Equal((loopThread, loopThread), (t.Read, t.Flushed)));
        int firstWait = threads.FindIndex(t => t.Waited);
        Assert.True(firstWait >= 0, "no read waited");
        Assert.All(threads.Skip(firstWait), t => Assert.True(t.Waited, "a read after the first wait found its bytes there already"));
    }

    [Fact]
    public async Task NextTurnRunsWorkOnTheConnectionsLoopOnlyOnceTheWorkRunningNowIsDoneInTheOrderQueued()
    {
        // Queued from the loop thread in the middle of a continuation, then from another thread while that continuation
        // still runs: neither may run inline, both run on the loop after it, in the order queued.
        var seen = new TaskCompletionSource<(ITransportLoopFeature Loop, List<string> Order, int[] Threads)>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, connection => ServeOnTheLoopAsync(connection, loop =>
        {
            var order = new List<string>();
            int[] threads = new int[2];
            loop.NextTurn.Schedule(_ =>
            {
                threads[0] = Environment.CurrentManagedThreadId;
                order.Add("from the loop");
            }, null);
            order.Add("after the schedule");
            // The loop thread waits here until the other thread has queued its work.
            var other = new Thread(() => loop.NextTurn.Schedule(_ =>
            {
                threads[1] = Environment.CurrentManagedThreadId;
                order.Add("from another thread");
                seen.TrySetResult((loop, order, threads));
            }, null));
            other.Start();
            other.Join();
            order.Add("end of the continuation");
        }), new LinuxTransportOptions { ThreadCount = 2 });

        using Socket client = await server.ConnectAsync();
        await UntilReadOnTheLoopAsync(client);

        (ITransportLoopFeature loop, List<string> order, int[] threads) = await seen.Task.WaitAsync(SocketExtensions.Patience);
        Assert.Equal(["after the schedule", "end of the continuation", "from the loop", "from another thread"], order);
        Assert.Equal([loop.LoopThreadId, loop.LoopThreadId], threads);
        Assert.Equal(server.Listener.Loops[loop.LoopIndex].ThreadId, loop.LoopThreadId);

        // Queued from this thread while the loop has nothing to do: it is woken for the work.
        var woken = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        loop.NextTurn.Schedule(_ => woken.TrySetResult(Environment.CurrentManagedThreadId), null);
        Assert.Equal(loop.LoopThreadId, await woken.Task.WaitAsync(SocketExtensions.Patience));
    }

    [Fact]
    public async Task EachConnectionsLoopFeatureNamesTheLoopThatServesIt()
    {
        // Two loops; whichever accepted a connection runs its application's continuations, and the feature says which.
        var found = new System.Collections.Concurrent.ConcurrentBag<(int Index, int ThreadId)>();
        await using TestServer server = await TestServer.StartAsync(
            kind,
            connection => ServeOnTheLoopAsync(connection, loop => found.Add((loop.LoopIndex, loop.LoopThreadId))),
            new LinuxTransportOptions { ThreadCount = 2 });

        Socket[] clients = await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => server.ConnectAsync()));
        try
        {
            foreach (Socket client in clients)
            {
                await UntilReadOnTheLoopAsync(client);
            }
        }
        finally
        {
            foreach (Socket client in clients)
            {
                client.Dispose();
            }
        }

        Assert.Equal(8, found.Count);
        int[] loopThreads = [.. server.Listener.Loops.Select(loop => loop.ThreadId)];
        Assert.Equal(2, loopThreads.Distinct().Count());
        Assert.All(found, f => Assert.Equal(loopThreads[f.Index], f.ThreadId));
    }

    /// <summary>
    /// The application of the loop feature's tests: reads a byte at a time and answers 'n' until a read continues on the
    /// thread the feature names (a read that waited does; one whose byte was there already may not), where it runs
    /// <paramref name="onLoop"/> and answers 'y'. Until the input ends.
    /// </summary>
    private static async Task ServeOnTheLoopAsync(ConnectionContext connection, Action<ITransportLoopFeature> onLoop)
    {
        ITransportLoopFeature loop = connection.Features.Get<ITransportLoopFeature>()!;
        PipeReader input = connection.Transport.Input;
        while (true)
        {
            ReadResult read = await input.ReadAsync();
            input.AdvanceTo(read.Buffer.End);
            if (read.IsCompleted)
            {
                return;
            }

            bool onTheLoop = Environment.CurrentManagedThreadId == loop.LoopThreadId;
            if (onTheLoop)
            {
                onLoop(loop);
            }

            await connection.Transport.Output.WriteAsync(onTheLoop ? "y"u8.ToArray() : "n"u8.ToArray());
        }
    }

    /// <summary>Sends a byte at a time until the application answers that it read one on its loop thread ('y', not 'n').</summary>
    private static async Task UntilReadOnTheLoopAsync(Socket client)
    {
        for (int attempt = 0; attempt < 100; attempt++)
        {
            await client.SendAllAsync(new byte[1]);
            if ((await client.ReceiveExactlyAsync(1))[0] == (byte)'y')
            {
                return;
            }
        }

        Assert.Fail("No read continued on the loop thread the connection's feature names.");
    }
}

public sealed class SchedulingTestsOnIoUring() : SchedulingTests(TransportKind.IoUring);

public sealed class SchedulingTestsOnEpoll() : SchedulingTests(TransportKind.Epoll);
