using System.Diagnostics.Metrics;
using System.Net.Sockets;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>What the transport reports about itself, read as any metrics listener reads it.</summary>
public abstract class MetricsTests(TransportKind kind)
{
    [Fact]
    public async Task EachLoopReportsItsPoolAndAcceptsTaggedWithItsIndexAndPortUntilTheListenerIsDisposed()
    {
        TestServer server = await TestServer.StartEchoAsync(kind, new LinuxTransportOptions { ThreadCount = 2 });
        Meter meter = server.Listener.Metrics!.Meter;
        using (Socket client = await server.ConnectAsync())
        {
            await client.SendAllAsync("ping"u8.ToArray());
            Assert.Equal("ping"u8.ToArray(), await client.ReceiveExactlyAsync(4));
            Assert.Equal(1, Collect(meter).Where(m => m.Instrument == "pb.transport.connections").Sum(m => m.Value));
        }

        await server.ConnectionsDoneAsync();
        List<(string Instrument, long Value, int Port, int Loop)> measured = Collect(meter);
        await server.DisposeAsync();

        string[] instruments = ["pb.transport.accept.failures", "pb.transport.connections", "pb.transport.pool.early_returns", "pb.transport.pool.size"];
        Assert.Equal(
            [.. instruments.SelectMany(instrument => new[] { (instrument, 0), (instrument, 1) })],
            measured.Select(m => (m.Instrument, m.Loop)).Order());
        Assert.All(measured, m => Assert.Equal(server.Port, m.Port));
        // The loop that served the connection rented its pipes' blocks from its pool.
        Assert.Equal(server.Listener.Loops.Sum(loop => (long)loop.Pool.SlabCount) * PinnedBlockMemoryPool.SlabSize, measured.Where(m => m.Instrument == "pb.transport.pool.size").Sum(m => m.Value));
        Assert.True(measured.Where(m => m.Instrument == "pb.transport.pool.size").Sum(m => m.Value) >= PinnedBlockMemoryPool.SlabSize);
        // The client closed and the echo ended: no connection is left; nothing failed.
        Assert.All(measured.Where(m => m.Instrument != "pb.transport.pool.size"), m => Assert.Equal(0, m.Value));
        Assert.Empty(Collect(meter));
    }

    private static List<(string Instrument, long Value, int Port, int Loop)> Collect(Meter meter)
    {
        var measured = new List<(string, long, int, int)>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter == meter)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            int port = -1, loop = -1;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == "server.port")
                {
                    port = (int)tag.Value!;
                }
                else if (tag.Key == "pb.transport.loop")
                {
                    loop = (int)tag.Value!;
                }
            }

            measured.Add((instrument.Name, value, port, loop));
        });
        listener.Start();
        listener.RecordObservableInstruments();
        return measured;
    }
}

public sealed class MetricsTestsOnIoUring() : MetricsTests(TransportKind.IoUring);

public sealed class MetricsTestsOnEpoll() : MetricsTests(TransportKind.Epoll);
