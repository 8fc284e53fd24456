using System.Net.Sockets;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>Faults of the process rather than of a peer: running out of descriptors while accepting.</summary>
[Collection(DescriptorCounting.Name)]
public abstract class FaultTests(TransportKind kind)
{
    private const int AcceptFailedEvent = 100;
    private const int EMFILE = 24;

    [Fact]
    public async Task OutOfDescriptorsAcceptBacksOffLogsAtMostOnceASecondKeepsServingAndAcceptsWhatWaitedOnceDescriptorsReturn()
    {
        var time = new FakeTimeProvider(DateTimeOffset.UnixEpoch);
        var log = new RecordingLogger();
        await using TestServer server = await TestServer.StartEchoAsync(kind, new LinuxTransportOptions { ThreadCount = 1 }, log, time);
        TransportLoop loop = server.Listener.Loops.Single();
        using Socket served = await server.ConnectAsync();
        await EchoesAsync(served, "before");

        // The client side's socket engines are made lazily, a few sockets apart; make them all now, or one would be
        // made (or fail) under the limit and leave the process's descriptors different for the tests after this.
        for (int i = 0; i < 16; i++)
        {
            using Socket warm = await server.ConnectAsync();
            await EchoesAsync(warm, "warm");
        }

        // The clients' sockets exist before the limit drops; connecting them takes no new descriptor on this side.
        Socket[] waiting = [.. Enumerable.Range(0, 3).Select(_ => new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))];
        try
        {
            using (DescriptorLimit.Exhaust())
            {
                await Task.WhenAll(waiting.Select(client => client.ConnectAsync(System.Net.IPAddress.Loopback, server.Port)));
                await LoopState.WaitUntilAsync(() => loop.AcceptFailures > 0);

                // Backing off: no retry until the clock moves, so a loop that spun would run the count up meanwhile. The
                // other accepts io_uring keeps armed fail as they are woken, and count as part of the first failure.
                await EchoesAsync(served, "meanwhile");
                int failures = loop.AcceptFailures;
                Assert.Equal(1, failures);
                await EchoesAsync(served, "still backing off");
                Assert.Equal(failures, loop.AcceptFailures);
                Assert.Equal(1, log.Count(AcceptFailedEvent));
                Assert.Contains($"errno {EMFILE}", log.Events.First(e => e.Id.Id == AcceptFailedEvent).Message, StringComparison.Ordinal);
                Assert.Contains("(1 failed so far)", log.Events.First(e => e.Id.Id == AcceptFailedEvent).Message, StringComparison.Ordinal);

                // Each back-off (100 ms) retries and fails again, once, but the log speaks once a second.
                for (int step = 1; step <= 5; step++)
                {
                    time.Advance(TimeSpan.FromMilliseconds(100));
                    await LoopState.WaitUntilAsync(() => loop.AcceptFailures > failures);
                    await EchoesAsync(served, $"retry {step}");
                    Assert.Equal(failures + 1, loop.AcceptFailures);
                    failures = loop.AcceptFailures;
                }

                Assert.Equal(1, log.Count(AcceptFailedEvent));
                time.Advance(TimeSpan.FromSeconds(1));
                await LoopState.WaitUntilAsync(() => loop.AcceptFailures > failures);
                Assert.Equal(2, log.Count(AcceptFailedEvent));
                // The second line tells how many failed in between, the retries of every back-off included.
                Assert.Contains($"({failures + 1} failed so far)", log.Events.Last(e => e.Id.Id == AcceptFailedEvent).Message, StringComparison.Ordinal);
            }

            // Descriptors are back: the next retry accepts every connection that waited in the backlog.
            time.Advance(TimeSpan.FromMilliseconds(100));
            for (int i = 0; i < waiting.Length; i++)
            {
                await EchoesAsync(waiting[i], $"waited {i}");
            }
        }
        finally
        {
            foreach (Socket client in waiting)
            {
                client.Dispose();
            }
        }
    }

    private static async Task EchoesAsync(Socket client, string text)
    {
        byte[] payload = System.Text.Encoding.ASCII.GetBytes(text);
        await client.SendAllAsync(payload);
        Assert.Equal(payload, await client.ReceiveExactlyAsync(payload.Length).WaitAsync(TimeSpan.FromSeconds(10)));
    }
}

[Collection(DescriptorCounting.Name)]
public sealed class FaultTestsOnIoUring() : FaultTests(TransportKind.IoUring);

[Collection(DescriptorCounting.Name)]
public sealed class FaultTestsOnEpoll() : FaultTests(TransportKind.Epoll);
