using System.Net.Sockets;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

public abstract class SchedulingTests(TransportKind kind)
{
    [Fact]
    public async Task TheApplicationsReadsAndFlushesContinueOnTheConnectionsLoopThread()
    {
        // No hop: the receive, the application's read continuation, its flush and the send all run on the loop.
        var threads = new List<(int Read, int Flushed)>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            System.IO.Pipelines.PipeReader input = connection.Transport.Input;
            while (true)
            {
                System.IO.Pipelines.ReadResult result = await input.ReadAsync();
                int read = Environment.CurrentManagedThreadId;
                long length = result.Buffer.Length;
                input.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    break;
                }

                await connection.Transport.Output.WriteAsync(new byte[length]);
                threads.Add((read, Environment.CurrentManagedThreadId));
            }

            done.TrySetResult();
        }, new TransportOptions { ThreadCount = 1 });

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
        // The first request may be read on the thread that started the application, if its bytes were there before
        // it first read; every read that had to wait continues on the loop.
        Assert.All(threads.Skip(1), t => Assert.Equal((loopThread, loopThread), t));
    }
}

public sealed class SchedulingTestsOnIoUring() : SchedulingTests(TransportKind.IoUring);

public sealed class SchedulingTestsOnEpoll() : SchedulingTests(TransportKind.Epoll);
