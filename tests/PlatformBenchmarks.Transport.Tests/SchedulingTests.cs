using System.Net.Sockets;
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

        int loopThread = server.Listener.Loops[0].ManagedThreadId;
        Assert.Equal(20, threads.Count);
        // Every read that had to wait continues on the loop, and so does the flush after it. A read whose bytes were
        // there already goes on on the thread it was called from: that can happen only before the application first
        // waited (while it still runs on the thread that started it, if that thread was held up until the client's
        // next request had arrived); from then on it runs on the loop, which cannot receive while it runs it.
        Assert.All(threads.Where(t => t.Waited), t => Assert.Equal((loopThread, loopThread), (t.Read, t.Flushed)));
        Assert.True(threads.Count(t => t.Waited) >= 18, $"only {threads.Count(t => t.Waited)} of 20 reads waited");
    }

    [Fact]
    public async Task WorkPostedToALoopsContextRunsOnItsThreadWithTheContextCurrent()
    {
        // What a client of the loop, such as the data layer's batches, relies on: it finds the context on the loop thread,
        // and what it posts there, from any thread, comes back to that thread, where its awaits return too.
        var seen = new TaskCompletionSource<(LoopSynchronizationContext? OnLoop, int Thread, bool Current, int AfterAwait)>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            // A read that waits continues on the loop: read until one has (the first may find its byte already there).
            LoopSynchronizationContext? onLoop = null;
            while (onLoop is null)
            {
                System.IO.Pipelines.ReadResult read = await connection.Transport.Input.ReadAsync();
                connection.Transport.Input.AdvanceTo(read.Buffer.End);
                onLoop = LoopSynchronizationContext.CurrentLoop;
            }

            await Task.Run(() => onLoop!.Post(async _ =>
            {
                int thread = Environment.CurrentManagedThreadId;
                bool current = SynchronizationContext.Current == onLoop;
                await Task.Delay(1);
                seen.TrySetResult((onLoop, thread, current, Environment.CurrentManagedThreadId));
            }, null));
            await connection.Transport.Input.ReadAsync();
        }, new LinuxTransportOptions { ThreadCount = 1 });

        using Socket client = await server.ConnectAsync();
        while (!seen.Task.IsCompleted)
        {
            await client.SendAllAsync(new byte[1]);
            await Task.WhenAny(seen.Task, Task.Delay(10));
        }

        (LoopSynchronizationContext? context, int thread, bool wasCurrent, int afterAwait) = await seen.Task.WaitAsync(SocketExtensions.Patience);

        int loopThread = server.Listener.Loops[0].ManagedThreadId;
        Assert.NotNull(context);
        Assert.Equal(loopThread, thread);
        Assert.True(wasCurrent);
        Assert.Equal(loopThread, afterAwait);
        Assert.Null(LoopSynchronizationContext.CurrentLoop);
        Assert.Throws<NotSupportedException>(() => context.Send(_ => { }, null));
    }
}

public sealed class SchedulingTestsOnIoUring() : SchedulingTests(TransportKind.IoUring);

public sealed class SchedulingTestsOnEpoll() : SchedulingTests(TransportKind.Epoll);
