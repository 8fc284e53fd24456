using System.Buffers;
using System.Globalization;
using System.IO.Pipelines;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>
/// Memory handed to the kernel is the kernel's until its completion is reaped. A connection closed while a send is in
/// flight (an abort, the drain timeout, the loop's shutdown) gives the send's blocks back to the pool only after that
/// send ended, so no other connection of the loop can rent one and write its response into bytes still being sent.
/// </summary>
public abstract class SendMemoryTests(TransportKind kind)
{
    // A victim's response is this byte alone; a neighbour's bytes are letters. A victim's client that receives anything
    // else received another connection's bytes.
    private const byte VictimByte = 0xAA;

    [Theory]
    [InlineData(Closer.Abort)]
    [InlineData(Closer.DrainTimeout)]
    [InlineData(Closer.LoopShutdown)]
    public async Task AConnectionClosedWithItsSendParkedOnAFullSocketGivesNoBlockBackBeforeTheSendEnds(Closer closer)
    {
        var time = new FakeTimeProvider(DateTimeOffset.UnixEpoch);
        var options = new LinuxTransportOptions { ThreadCount = 1, DrainTimeout = TimeSpan.FromSeconds(5) };
        var parked = new TaskCompletionSource<TransportConnection>(TaskCreationOptions.RunContinuationsAsynchronously);
        TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            if (closer == Closer.DrainTimeout)
            {
                // Done writing, with far more queued than the socket takes: the dispose waits for the drain, then resets.
                byte[] chunk = new byte[64 * 1024];
                Array.Fill(chunk, VictimByte);
                for (int i = 0; i < 512; i++)
                {
                    connection.Transport.Output.Write(chunk);
                }

                await connection.Transport.Output.CompleteAsync();
                Task dispose = connection.DisposeAsync().AsTask();
                parked.TrySetResult((TransportConnection)connection);
                await dispose;
            }
            else
            {
                await WriteUntilHeldBackAsync(connection, () => parked.TrySetResult((TransportConnection)connection));
            }
        }, options, time: time);
        await using (server)
        {
            using Socket client = await server.ConnectAsync();
            client.ReceiveBufferSize = 4096;
            TransportConnection served = await parked.Task.WaitAsync(SocketExtensions.Patience);
            await LoopState.WaitUntilAsync(() => served.WaitingToSend);

            switch (closer)
            {
                case Closer.Abort:
                    served.Abort(new ConnectionAbortedException("Aborted with a send in flight."));
                    await server.ConnectionsDoneAsync();
                    break;
                case Closer.DrainTimeout:
                    time.Advance(options.DrainTimeout);
                    await server.ConnectionsDoneAsync();
                    break;
                case Closer.LoopShutdown:
                    await server.DisposeAsync();
                    break;
            }

            Assert.Equal(0, server.ConnectionCount);
            Assert.Equal(0, EarlyReturns(server));
        }
    }

    [Fact]
    public async Task ConnectionsAbortedWithSendsInFlightNeverPassTheirBlocksToANeighbourOrItsBytesToTheirPeer()
    {
        // Victims are aborted at whatever point their sends have reached while their clients read, beside a neighbour
        // echoing on the same loop (so renting from the same pool). PB_SEND_STRESS_ABORTS raises the count for a long run.
        int aborts = int.TryParse(Environment.GetEnvironmentVariable("PB_SEND_STRESS_ABORTS"), CultureInfo.InvariantCulture, out int n) ? n : 200;
        using var victimClosed = new SemaphoreSlim(0);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            ReadResult first = await connection.Transport.Input.ReadAsync();
            bool victim = first.Buffer.FirstSpan[0] == (byte)'V';
            connection.Transport.Input.AdvanceTo(first.Buffer.Start);
            if (victim)
            {
                // The flush ends once the send loop has let go of the output, which is after the close.
                await WriteUntilHeldBackAsync(connection, connection.Abort);
                victimClosed.Release();
            }
            else
            {
                await TestServer.EchoAsync(connection);
            }
        }, new LinuxTransportOptions { ThreadCount = 1 });

        using Socket neighbour = await server.ConnectAsync();
        using var stop = new CancellationTokenSource();
        Task<long> echoed = EchoLettersUntilStoppedAsync(neighbour, stop.Token);
        for (int i = 0; i < aborts; i++)
        {
            using Socket client = await server.ConnectAsync();
            client.ReceiveBufferSize = 4096 << (i % 4);
            await client.SendAllAsync("V"u8.ToArray());
            Task<long> receiving = ReceiveVictimBytesAsync(client);
            Assert.True(await victimClosed.WaitAsync(SocketExtensions.Patience), $"Victim {i} was not closed.");

            // The reset alone may never arrive (see NudgeAsync).
            await client.NudgeAsync();
            long received = await receiving;
            Assert.True(received > 0, $"Victim {i} received nothing before its reset.");
        }

        await stop.CancelAsync();
        Assert.True(await echoed.WaitAsync(SocketExtensions.Patience) > 0);
        Assert.Equal(0, EarlyReturns(server));
    }

    public enum Closer
    {
        /// <summary>The application aborts the connection.</summary>
        Abort,

        /// <summary>The peer does not take the rest of the output before the drain timeout.</summary>
        DrainTimeout,

        /// <summary>The transport stops with the connection open.</summary>
        LoopShutdown,
    }

    private static int EarlyReturns(TestServer server) => server.Listener.Loops.Sum(loop => loop.Pool.EarlyReturns);

    /// <summary>
    /// Writes <see cref="VictimByte"/> until a flush waits (or, against a client that keeps up, 16 MiB have gone),
    /// calls <paramref name="heldBack"/>, and stops once the output ends.
    /// </summary>
    private static async Task WriteUntilHeldBackAsync(ConnectionContext connection, Action heldBack)
    {
        PipeWriter output = connection.Transport.Output;
        byte[] chunk = new byte[16 * 1024];
        Array.Fill(chunk, VictimByte);
        for (int written = 1; ; written++)
        {
            output.Write(chunk);
            ValueTask<FlushResult> flush = output.FlushAsync();
            if (!flush.IsCompleted || written == 1024)
            {
                heldBack();
            }

            if ((await flush).IsCompleted)
            {
                return;
            }
        }
    }

    /// <summary>Reads a victim's stream to its reset, failing on any byte that is not its own; returns how many came.</summary>
    private static async Task<long> ReceiveVictimBytesAsync(Socket client)
    {
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        try
        {
            while (true)
            {
                int received = await client.ReceiveAsync(buffer.AsMemory()).AsTask().WaitAsync(SocketExtensions.Patience);
                if (received == 0)
                {
                    return total;
                }

                int foreign = buffer.AsSpan(0, received).IndexOfAnyExcept(VictimByte);
                Assert.True(foreign < 0, $"A victim received byte 0x{buffer[Math.Max(foreign, 0)]:x2} at offset {total + foreign}: another connection's.");
                total += received;
            }
        }
        catch (SocketException ex) when (ex.SocketErrorCode == SocketError.ConnectionReset)
        {
            return total;
        }
    }

    /// <summary>Sends letters and checks each echo byte for byte until stopped; returns the bytes echoed.</summary>
    private static async Task<long> EchoLettersUntilStoppedAsync(Socket neighbour, CancellationToken stop)
    {
        var random = new Random(7);
        byte[] sent = new byte[32 * 1024];
        long total = 0;
        while (!stop.IsCancellationRequested)
        {
            int length = random.Next(1, sent.Length);
            for (int i = 0; i < length; i++)
            {
                sent[i] = (byte)('a' + random.Next(26));
            }

            await neighbour.SendAllAsync(sent.AsMemory(0, length));
            byte[] echo = await neighbour.ReceiveExactlyAsync(length);
            Assert.Equal(sent.AsSpan(0, length).ToArray(), echo);
            total += length;
        }

        return total;
    }
}

public sealed class SendMemoryTestsOnIoUring() : SendMemoryTests(TransportKind.IoUring);

public sealed class SendMemoryTestsOnEpoll() : SendMemoryTests(TransportKind.Epoll);
