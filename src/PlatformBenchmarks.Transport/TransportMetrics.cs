using System.Diagnostics.Metrics;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// What the transport reports about itself while it runs, as instruments of the meter <see cref="MeterName"/> (for
/// example <c>dotnet-counters monitor --counters PlatformBenchmarks.Transport -n PlatformBenchmarks</c>): one measurement
/// per loop, tagged with the loop's index and the port it serves. Read only when a metrics listener collects, so the loops'
/// paths pay nothing for it.
/// </summary>
internal sealed class TransportMetrics : IDisposable
{
    public const string MeterName = "PlatformBenchmarks.Transport";

    public TransportMetrics(IReadOnlyList<TransportLoop> loops, int port)
    {
        Meter = new Meter(MeterName);
        Meter.CreateObservableUpDownCounter(
            "pb.transport.connections",
            () => Measure(loops, port, static loop => loop.ConnectionCount),
            unit: "{connection}",
            description: "Connections the loop owns: accepted and not yet closed.");
        Meter.CreateObservableGauge(
            "pb.transport.pool.size",
            () => Measure(loops, port, static loop => (long)loop.Pool.SlabCount * PinnedBlockMemoryPool.SlabSize),
            unit: "By",
            description: "Pinned memory in the loop's block pool; it grows a slab at a time and is never given back.");
        Meter.CreateObservableCounter(
            "pb.transport.pool.early_returns",
            () => Measure(loops, port, static loop => loop.Pool.EarlyReturns),
            unit: "{block}",
            description: "Blocks given back while the kernel still held them for a send, kept until the send was reaped; anything but 0 is a transport bug.");
        Meter.CreateObservableCounter(
            "pb.transport.accept.failures",
            () => Measure(loops, port, static loop => loop.AcceptFailures),
            unit: "{accept}",
            description: "Accepts that failed; out of descriptors or memory, the loop backs off before it accepts again.");
    }

    public Meter Meter { get; }

    public void Dispose() => Meter.Dispose();

    private static IEnumerable<Measurement<long>> Measure(IReadOnlyList<TransportLoop> loops, int port, Func<TransportLoop, long> read)
    {
        foreach (TransportLoop loop in loops)
        {
            yield return new Measurement<long>(read(loop), new KeyValuePair<string, object?>("server.port", port), new KeyValuePair<string, object?>("pb.transport.loop", loop.Index));
        }
    }
}
