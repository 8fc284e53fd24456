using System.Runtime.InteropServices;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport;

/// <summary>The kind that runs, and in words why (for the start-up banner).</summary>
public sealed record TransportChoice(TransportKind Kind, string Reason);

/// <summary>Turns the configured <c>Transport:Kind</c> into the kind that can run here.</summary>
public static class TransportChooser
{
    /// <summary>
    /// Auto: epoll on Linux, Kestrel's sockets elsewhere. IoUring is not implemented yet and runs epoll, saying so.
    /// Epoll (asked for or chosen) is probed with one epoll_create1; if even that fails, sockets run, with the errno.
    /// </summary>
    public static TransportChoice Choose(TransportKind requested)
    {
        if (requested == TransportKind.Sockets)
        {
            return new(TransportKind.Sockets, "configured");
        }

        if (!OperatingSystem.IsLinux())
        {
            return new(TransportKind.Sockets, requested == TransportKind.Auto ? "auto: not Linux" : $"{requested} needs Linux");
        }

        string reason = requested switch
        {
            TransportKind.Auto => "auto: Linux",
            TransportKind.IoUring => "io_uring is not available in this build; epoll instead",
            _ => "configured",
        };
        return ProbeEpoll(out string? failure) ? new(TransportKind.Epoll, reason) : new(TransportKind.Sockets, $"epoll unavailable ({failure})");
    }

    private static bool ProbeEpoll(out string? failure)
    {
        int fd = Libc.EpollCreate1(Libc.EPOLL_CLOEXEC);
        if (fd < 0)
        {
            failure = $"epoll_create1: errno {Marshal.GetLastPInvokeError()}";
            return false;
        }

        _ = Libc.Close(fd);
        failure = null;
        return true;
    }
}
