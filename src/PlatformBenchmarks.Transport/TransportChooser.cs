using System.Runtime.InteropServices;
using PlatformBenchmarks.Transport.Interop;
using PlatformBenchmarks.Transport.IoUring;

namespace PlatformBenchmarks.Transport;

/// <summary>The kind that runs, and in words why (for the start-up banner).</summary>
public sealed record TransportChoice(TransportKind Kind, string Reason);

/// <summary>Turns the configured <c>Transport:Kind</c> into the kind that can run here.</summary>
public static class TransportChooser
{
    /// <summary>
    /// Auto: io_uring on Linux when the kernel allows it, epoll when it does not, Kestrel's sockets elsewhere.
    /// A kind is probed by making what its loop needs (a ring with its flags and a buffer ring; an epoll instance), so a
    /// kernel that is too old, or a seccomp profile that forbids io_uring (Docker's default answers EPERM), falls back
    /// to the next kind with the errno in the reason. Sockets are never chosen on Linux unless configured.
    /// </summary>
    public static TransportChoice Choose(TransportKind requested) => Choose(requested, OperatingSystem.IsLinux(), ProbeIoUring, ProbeEpoll);

    /// <summary>The decision alone, over given probes (each returns null when its kind can run, else why not).</summary>
    internal static TransportChoice Choose(TransportKind requested, bool linux, Func<string?> ioUringUnavailable, Func<string?> epollUnavailable)
    {
        if (requested == TransportKind.Sockets)
        {
            return new(TransportKind.Sockets, "configured");
        }

        if (!linux)
        {
            return new(TransportKind.Sockets, requested == TransportKind.Auto ? "auto: not Linux" : $"{requested} needs Linux");
        }

        string reason = requested == TransportKind.Auto ? "auto" : "configured";
        if (requested is TransportKind.Auto or TransportKind.IoUring)
        {
            if (ioUringUnavailable() is not { } unavailable)
            {
                return new(TransportKind.IoUring, reason);
            }

            reason = $"{reason}; io_uring unavailable ({unavailable}), epoll instead";
        }

        return epollUnavailable() is { } failure ? new(TransportKind.Sockets, $"{reason}; epoll unavailable ({failure})") : new(TransportKind.Epoll, reason);
    }

    /// <summary>Makes what an io_uring loop needs (its ring with its flags, a buffer ring), then frees it.</summary>
    private static string? ProbeIoUring()
    {
        using var ring = Ring.Create(8, 16, out int error);
        if (ring is null)
        {
            string why = error == -Libc.EPERM ? ", forbidden: a seccomp profile such as Docker's default?" : error == -Libc.ENOSYS ? ", not in this kernel" : error == -Libc.EINVAL ? ", a kernel older than 6.1?" : string.Empty;
            return $"io_uring_setup: errno {-error}{why}";
        }

        using var buffers = ProvidedBufferRing.Create(ring, 2, 64, out error);
        return buffers is null ? $"buffer ring registration: errno {-error}" : null;
    }

    private static string? ProbeEpoll()
    {
        int fd = Libc.EpollCreate1(Libc.EPOLL_CLOEXEC);
        if (fd < 0)
        {
            return $"epoll_create1: errno {Marshal.GetLastPInvokeError()}";
        }

        _ = Libc.Close(fd);
        return null;
    }
}
