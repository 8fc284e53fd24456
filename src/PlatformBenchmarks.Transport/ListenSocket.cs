using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// Creates the non-blocking listening sockets, one per loop thread, all bound to one address with SO_REUSEPORT, on a
/// port no other socket listens on. Its pointers are of stack locals, each given to one system call.
/// </summary>
/// <remarks>
/// SO_REUSEPORT lets any socket of the same effective user that sets it too join the group on the address, and the
/// kernel would then split new connections between the two processes. So the port is checked twice: before our binds,
/// with a plain bind that fails on an address any socket listens on, whatever its options; after them, with the
/// kernel's list of listening sockets, for one that joined in between. What stays open is a socket of the same user
/// that joins later: Linux cannot close a group (a reuseport BPF program that ignored the newcomer could be detached by
/// it), and a process of the same user may kill this one and take the port all the same.
/// </remarks>
internal static partial class ListenSocket
{
    // The kernel takes net.core.somaxconn for any larger backlog, so the host's setting decides: a fixed 4,096 per
    // socket held a host raised for 16,384 clients connecting at once (HttpArena's echo-ws) below what it was set to
    // take (docs/decisions/0019-websocket.md).
    private const int Backlog = int.MaxValue;

    /// <summary>
    /// One socket per loop on <paramref name="endPoint"/>. With port 0, the first socket's ephemeral port is used for the
    /// rest. On failure every socket created so far is closed, and the error thrown as Kestrel's own transport throws it:
    /// AddressInUseException for EADDRINUSE, or when another socket listens on the address too, a
    /// <see cref="SocketException"/> otherwise (on which Kestrel falls back from [::] to 0.0.0.0).
    /// </summary>
    public static int[] CreateGroup(IPEndPoint endPoint, int count, ILogger logger, out IPEndPoint bound)
    {
        if (endPoint.Port != 0)
        {
            // Before any of ours binds: joining another process's group, even for as long as it takes to notice, would
            // take connections from it. SO_REUSEADDR, set here as on ours, lets connections of an earlier run still in
            // TIME_WAIT pass. A new ephemeral port needs no check: the kernel picks one no socket is bound to.
            _ = Libc.Close(Open(endPoint, reusePort: false));
        }

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

            // Closes the window between the plain bind above and ours. A socket found here loses the connections the
            // kernel queued on ours meanwhile: they are reset when ours close.
            EnsureAlone(fds, bound, logger);
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

    /// <summary>
    /// Throws AddressInUseException when a listening socket other than <paramref name="fds"/> takes connections meant
    /// for them: it is in their SO_REUSEPORT group, or listens on an address that overlaps theirs. Where the kernel will
    /// not list its sockets, logs a warning and trusts the plain bind that came before.
    /// </summary>
    internal static unsafe void EnsureAlone(ReadOnlySpan<int> fds, IPEndPoint bound, ILogger logger)
    {
        var ours = new HashSet<ulong>();
        foreach (int fd in fds)
        {
            ulong cookie;
            uint length = sizeof(ulong);
            if (Libc.GetSockOpt(fd, Libc.SOL_SOCKET, Libc.SO_COOKIE, &cookie, &length) != 0)
            {
                LogCannotCheck(logger, bound, System.Runtime.InteropServices.Marshal.GetLastPInvokeError());
                return;
            }

            ours.Add(cookie);
        }

        var listeners = new List<TcpListenerEntry>();
        if (!SocketDiagnostics.TryListTcpListeners(listeners, out int errno))
        {
            LogCannotCheck(logger, bound, errno);
            return;
        }

        int mine = listeners.FindIndex(listener => ours.Contains(listener.Cookie));
        if (mine < 0)
        {
            LogCannotCheck(logger, bound, 0);
            return;
        }

        foreach (TcpListenerEntry listener in listeners)
        {
            if (!ours.Contains(listener.Cookie) && Overlaps(listeners[mine], listener))
            {
                throw new AddressInUseException("Address already in use: another socket listens on it too.");
            }
        }
    }

    /// <summary>
    /// Whether connections for one listener's address could reach the other: the same port, and the same address or a
    /// wildcard of its family, where a dual-stack [::] is IPv4's wildcard too (the kernel's rule for a bind conflict).
    /// </summary>
    internal static bool Overlaps(TcpListenerEntry a, TcpListenerEntry b) =>
        a.EndPoint.Port == b.EndPoint.Port
        && (Same(IPv4View(a), IPv4View(b), IPAddress.Any) || Same(IPv6View(a), IPv6View(b), IPAddress.IPv6Any));

    private static bool Same(IPAddress? a, IPAddress? b, IPAddress wildcard) =>
        a is not null && b is not null && (a.Equals(wildcard) || b.Equals(wildcard) || a.Equals(b));

    /// <summary>The IPv4 address a listener takes connections for, if any.</summary>
    private static IPAddress? IPv4View(TcpListenerEntry listener) => listener.EndPoint.Address switch
    {
        { AddressFamily: AddressFamily.InterNetwork } address => address,
        { IsIPv4MappedToIPv6: true } address => address.MapToIPv4(),
        var address when address.Equals(IPAddress.IPv6Any) && !listener.V6Only => IPAddress.Any,
        _ => null,
    };

    /// <summary>The IPv6 address a listener takes connections for, if any.</summary>
    private static IPAddress? IPv6View(TcpListenerEntry listener) =>
        listener.EndPoint.Address is { AddressFamily: AddressFamily.InterNetworkV6, IsIPv4MappedToIPv6: false } address
            ? new IPAddress(address.GetAddressBytes())
            : null;

    [LoggerMessage(EventId = 106, Level = LogLevel.Warning, Message = "Could not check that no other socket listens on {EndPoint} (errno {Errno}): the kernel does not list its sockets here; one that bound the port with SO_REUSEPORT while this server started would share its connections")]
    private static partial void LogCannotCheck(ILogger logger, IPEndPoint endPoint, int errno);

    private static int Create(IPEndPoint endPoint)
    {
        int fd = Open(endPoint, reusePort: true);
        if (Libc.Listen(fd, Backlog) != 0)
        {
            Exception error = LastError();
            _ = Libc.Close(fd);
            throw error;
        }

        return fd;
    }

    /// <summary>A socket bound to <paramref name="endPoint"/>, not listening yet.</summary>
    private static unsafe int Open(IPEndPoint endPoint, bool reusePort)
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
            // Every response is written whole and at once, so Nagle's delay would only hold back the last segment. Set
            // here, since Linux copies it to each accepted socket: one system call per listener, not per connection.
            _ = Libc.SetOption(fd, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, 1);
            // Each loop accepts from its own queue: the kernel spreads connections over the loops by hash, and a
            // connection is accepted by the thread that will own it, with no hand-off and no thundering herd.
            if (reusePort && Libc.SetOption(fd, Libc.SOL_SOCKET, Libc.SO_REUSEPORT, 1) != 0)
            {
                throw LastError();
            }

            if (family == Libc.AF_INET6 && endPoint.Address.Equals(IPAddress.IPv6Any))
            {
                // [::] accepts IPv4 too, as Kestrel's dual-mode socket does.
                _ = Libc.SetOption(fd, Libc.IPPROTO_IPV6, Libc.IPV6_V6ONLY, 0);
            }

            Libc.SocketAddress address = SocketAddresses.From(endPoint, out uint length);
            if (Libc.Bind(fd, &address, length) != 0)
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

    private static unsafe IPEndPoint? LocalEndPoint(int fd)
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
            98 => new AddressInUseException("Address already in use."),
            13 => new SocketException((int)SocketError.AccessDenied),
            97 => new SocketException((int)SocketError.AddressFamilyNotSupported),
            _ => new SocketException((int)SocketError.SocketError, $"Listening socket: errno {errno}."),
        };
    }
}
