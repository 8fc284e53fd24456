using System.Net;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// Kestrel's entry to this transport: registered as an <see cref="IConnectionListenerFactory"/>, it claims IP endpoints
/// (the selector) and binds each to a group of loop threads of the configured kind.
/// </summary>
public sealed class LinuxTransportFactory : IConnectionListenerFactory, IConnectionListenerFactorySelector
{
    private readonly TransportKind _kind;
    private readonly LinuxTransportOptions _options;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;

    /// <param name="time">The clock of the drain timeout and the accept back-off.</param>
    public LinuxTransportFactory(TransportKind kind, LinuxTransportOptions options, ILoggerFactory loggerFactory, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(loggerFactory);
        ArgumentNullException.ThrowIfNull(time);
        if (kind is not (TransportKind.Epoll or TransportKind.IoUring))
        {
            throw new ArgumentOutOfRangeException(nameof(kind), kind, "This transport runs IoUring or Epoll.");
        }

        // The host has validated its options already; these may come from code.
        LinuxTransportOptionsValidator.ThrowIfInvalid(options);
        _kind = kind;
        _options = options;
        _logger = loggerFactory.CreateLogger("PlatformBenchmarks.Transport");
        _time = time;
    }

    public bool CanBind(EndPoint endpoint) => endpoint is IPEndPoint;

    public ValueTask<IConnectionListener> BindAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
    {
        if (endpoint is not IPEndPoint ip)
        {
            throw new NotSupportedException($"{endpoint} is not an IP endpoint.");
        }

        return new ValueTask<IConnectionListener>(LinuxConnectionListener.Bind(_kind, ip, _options, _logger, _time));
    }
}
