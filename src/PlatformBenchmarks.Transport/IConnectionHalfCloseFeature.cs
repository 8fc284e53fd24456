namespace PlatformBenchmarks.Transport;

/// <summary>
/// Present on connections of this project's transport. Completing <c>Transport.Output</c> sends what is queued, then a
/// FIN (shutdown(SHUT_WR)) at once, and leaves <c>Transport.Input</c> readable: the peer's remaining bytes still arrive
/// until the application completes the input, and only then is the socket closed. Kestrel's socket transport instead
/// shuts both directions and disposes the socket when the output completes.
/// </summary>
public interface IConnectionHalfCloseFeature
{
    /// <summary>True once everything the application wrote has been sent and the FIN has gone out.</summary>
    bool IsOutputShutDown { get; }
}
