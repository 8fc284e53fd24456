using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Transport;

internal static partial class TransportLog
{
    [LoggerMessage(EventId = 100, Level = LogLevel.Error, Message = "accept failed with errno {Errno} on loop {Loop} ({Failures} failed so far); backing off (logged at most once a second)")]
    public static partial void AcceptFailed(ILogger logger, int errno, int loop, int failures);

    [LoggerMessage(EventId = 101, Level = LogLevel.Critical, Message = "Transport loop {Loop} failed")]
    public static partial void LoopFailed(ILogger logger, Exception exception, int loop);

    [LoggerMessage(EventId = 104, Level = LogLevel.Error, Message = "Work queued to transport loop {Loop} failed")]
    public static partial void WorkFailed(ILogger logger, Exception exception, int loop);

    [LoggerMessage(EventId = 102, Level = LogLevel.Debug, Message = "Connection {ConnectionId} ended: errno {Errno}")]
    public static partial void ConnectionError(ILogger logger, string connectionId, int errno);

    [LoggerMessage(EventId = 103, Level = LogLevel.Error, Message = "Connection {ConnectionId}: unexpected failure while sending")]
    public static partial void SendFailed(ILogger logger, Exception exception, string connectionId);

    [LoggerMessage(EventId = 105, Level = LogLevel.Warning, Message = "Transport loop {Loop} could not wait for its io_uring operations to end (errno {Errno}); its buffers are kept")]
    public static partial void DrainFailed(ILogger logger, int errno, int loop);

    [LoggerMessage(EventId = 106, Level = LogLevel.Error, Message = "Transport loop {Loop}: closing a connection's descriptor failed with errno {Errno}")]
    public static partial void CloseFailed(ILogger logger, int errno, int loop);
}
