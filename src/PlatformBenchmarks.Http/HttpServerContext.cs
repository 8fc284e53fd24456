using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Http;

/// <summary>
/// What every connection of one server shares: its limits, its clock (every timeout and the Date header read time
/// through it, so tests drive time instead of waiting for it), the Date value, and the engine's logger.
/// </summary>
public sealed class HttpServerContext(HttpLimits limits, TimeProvider time, DateHeader date, ILogger logger)
{
    public HttpLimits Limits { get; } = limits;

    public TimeProvider Time { get; } = time;

    public DateHeader Date { get; } = date;

    public ILogger Logger { get; } = logger;
}
