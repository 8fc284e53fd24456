using System.Net;
using System.Net.Sockets;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport;

/// <summary>Creates the non-blocking listening sockets, one per loop thread, all bound to one address with SO_REUSEPORT.</summary>
internal static unsafe class ListenSocket
{
    private const int Backlog = 4096;

    /// <summary>
    /// One socket per loop on <paramref name="endPoint"/>. With port 0, the first socket's ephemeral port is used for the
    /// rest. On failure every socket created so far is closed, and the error thrown as Kestrel's own transport throws it:
    /// AddressInUseException for EADDRINUSE, a <see cref="SocketException"/> otherwise (on which Kestrel falls back
    /// from [::] to 0.0.0.0).
    /// </summary>
    public static int[] CreateGroup(IPEndPoint endPoint, int count, out IPEndPoint bound)
    {
        int[] fds = new int[count];
        Array.Fill(fds, -1);
        bound = endPoint;
        try
        {
            for (int i = 0; i < count; i++)
            {
                fds[i] = Create(bound);
                if (i == 0)
                {
                    bound = LocalEndPoint(fds[0]) ?? endPoint;
                }
            }

            return fds;
        }
        catch
        {
            foreach (int fd in fds)
            {
                if (fd >= 0)
                {
                    _ = Libc.Close(fd);
                }
            }

            throw;
        }
    }

    private static int Create(IPEndPoint endPoint)
    {
        int family = endPoint.AddressFamily == AddressFamily.InterNetworkV6 ? Libc.AF_INET6 : Libc.AF_INET;
        int fd = Libc.Socket(family, Libc.SOCK_STREAM | Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC, 0);
        if (fd < 0)
        {
            throw LastError();
        }

        try
        {
            _ = Libc.SetOption(fd, Libc.SOL_SOCKET, Libc.SO_REUSEADDR, 1);
            // Each loop accepts from its own queue: the kernel spreads connections over the loops by hash, and a
            // connection is accepted by the thread that will own it, with no hand-off and no thundering herd.
            if (Libc.SetOption(fd, Libc.SOL_SOCKET, Libc.SO_REUSEPORT, 1) != 0)
            {
                throw LastError();
            }

            if (family == Libc.AF_INET6 && endPoint.Address.Equals(IPAddress.IPv6Any))
            {
                // [::] accepts IPv4 too, as Kestrel's dual-mode socket does.
                _ = Libc.SetOption(fd, Libc.IPPROTO_IPV6, Libc.IPV6_V6ONLY, 0);
            }

            Libc.SocketAddress address = SocketAddresses.From(endPoint, out uint length);
            if (Libc.Bind(fd, &address, length) != 0 || Libc.Listen(fd, Backlog) != 0)
            {
                throw LastError();
            }

            return fd;
        }
        catch
        {
            _ = Libc.Close(fd);
            throw;
        }
    }

    private static IPEndPoint? LocalEndPoint(int fd)
    {
        Libc.SocketAddress address;
        uint length = Libc.SocketAddress.Size;
        return Libc.GetSockName(fd, &address, &length) == 0 ? SocketAddresses.ToEndPoint(in address) : null;
    }

    private static Exception LastError()
    {
        int errno = System.Runtime.InteropServices.Marshal.GetLastPInvokeError();
        return errno switch
        {
            98 => new Microsoft.AspNetCore.Connections.AddressInUseException("Address already in use."),
            13 => new SocketException((int)SocketError.AccessDenied),
            97 => new SocketException((int)SocketError.AddressFamilyNotSupported),
            _ => new SocketException((int)SocketError.SocketError, $"Listening socket: errno {errno}."),
        };
    }
}
