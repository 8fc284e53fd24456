using System.Buffers;
using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Http;

/// <summary>
/// What every connection of one server shares: its limits, its clock (every timeout and the Date header read time
/// through it, so tests drive time instead of waiting for it), the Date value, the engine's logger, and the pool a
/// head split across buffer segments is gathered in.
/// </summary>
/// <param name="headBuffers">Where the buffers of heads split across segments come from; the shared array pool unless given.</param>
public sealed class HttpServerContext(HttpLimits limits, TimeProvider time, DateHeader date, ILogger logger, ArrayPool<byte>? headBuffers = null)
{
    public HttpLimits Limits { get; } = limits;

    public TimeProvider Time { get; } = time;

    public DateHeader Date { get; } = date;

    public ILogger Logger { get; } = logger;

    public ArrayPool<byte> HeadBuffers { get; } = headBuffers ?? ArrayPool<byte>.Shared;
}
