namespace PlatformBenchmarks.Transport;

/// <summary>Which transport carries the server's connections; chosen at start-up from <c>Transport:Kind</c>.</summary>
public enum TransportKind
{
    /// <summary>io_uring where the kernel allows it, epoll otherwise on Linux; Kestrel's sockets elsewhere.</summary>
    Auto,

    /// <summary>Thread-per-core loops over io_uring.</summary>
    IoUring,

    /// <summary>Thread-per-core loops over epoll.</summary>
    Epoll,

    /// <summary>Kestrel's own socket transport.</summary>
    Sockets,
}
