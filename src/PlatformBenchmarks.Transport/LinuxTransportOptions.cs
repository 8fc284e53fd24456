namespace PlatformBenchmarks.Transport;

/// <summary>
/// Which transport runs (<see cref="Kind"/>), and the settings of this project's io_uring and epoll loops: the
/// <c>Transport</c> configuration section. <see cref="LinuxTransportOptionsValidator"/> holds their rules. Kestrel's
/// socket transport has its own section, <c>Sockets</c>.
/// </summary>
public sealed class LinuxTransportOptions
{
    /// <summary>Which transport to run; <see cref="TransportKind.Auto"/> lets <see cref="TransportChooser"/> decide.</summary>
    public TransportKind Kind { get; set; } = TransportKind.Auto;

    /// <summary>Loop threads, each with its own listener and connections; 0 means one per processor.</summary>
    public int ThreadCount { get; set; }

    /// <summary>
    /// Bytes received but not yet consumed by the application at which a connection stops reading (its input pipe's
    /// pause threshold); reading resumes at half. Kestrel's default request buffer, 1 MiB.
    /// </summary>
    public long MaxReadBufferSize { get; set; } = 1024 * 1024;

    /// <summary>
    /// Bytes flushed by the application but not yet sent at which its flush waits (the output pipe's pause threshold);
    /// it resumes at half. Kestrel's default response buffer, 64 KiB.
    /// </summary>
    public long MaxWriteBufferSize { get; set; } = 64 * 1024;

    /// <summary>
    /// How long a connection the application is done with may take to send what is left (a peer that stopped reading)
    /// before it is reset. Without it, such a peer would hold the connection and its buffers forever.
    /// </summary>
    public TimeSpan DrainTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>The thread count actually used.</summary>
    public int EffectiveThreadCount => ThreadCount > 0 ? ThreadCount : Environment.ProcessorCount;
}
