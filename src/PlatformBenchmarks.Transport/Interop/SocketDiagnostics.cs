using System.Buffers.Binary;
using System.Net;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport.Interop;

/// <summary>One TCP listening socket of this network namespace, whoever owns it, as sock_diag reports it.</summary>
/// <param name="Cookie">The kernel's id of the socket, the one <see cref="Libc.SO_COOKIE"/> gives for a descriptor.</param>
/// <param name="V6Only">An IPv6 socket that takes no IPv4 connections (IPV6_V6ONLY).</param>
internal readonly record struct TcpListenerEntry(ulong Cookie, IPEndPoint EndPoint, bool V6Only);

/// <summary>
/// The kernel's list of TCP listening sockets, read over a NETLINK_SOCK_DIAG socket as ss(8) reads it. It shows every
/// user's sockets and needs no privilege.
///
/// Memory: the pointers are of stack locals or into the caller's buffer, fixed for the call; none outlives it.
/// </summary>
internal static class SocketDiagnostics
{
    // Larger than any datagram of a dump (the kernel fills at most 32 KiB per read), so none is truncated.
    private const int ReceiveBufferSize = 64 * 1024;

    /// <summary>Adds the TCP listeners of both families to <paramref name="into"/>; false with the errno when the kernel will not say.</summary>
    public static bool TryListTcpListeners(List<TcpListenerEntry> into, out int errno)
    {
        int fd = Libc.Socket(Libc.AF_NETLINK, Libc.SOCK_DGRAM | Libc.SOCK_CLOEXEC, Libc.NETLINK_SOCK_DIAG);
        if (fd < 0)
        {
            errno = Marshal.GetLastPInvokeError();
            return false;
        }

        try
        {
            byte[] buffer = GC.AllocateUninitializedArray<byte>(ReceiveBufferSize);
            errno = Dump(fd, Libc.AF_INET, buffer, into);
            if (errno == 0)
            {
                errno = Dump(fd, Libc.AF_INET6, buffer, into);
            }

            return errno == 0;
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    private static unsafe int Dump(int fd, int family, byte[] buffer, List<TcpListenerEntry> into)
    {
        var request = new Libc.InetDiagDumpRequest
        {
            Header = new Libc.NetlinkMessageHeader
            {
                Length = (uint)sizeof(Libc.InetDiagDumpRequest),
                Type = Libc.SOCK_DIAG_BY_FAMILY,
                Flags = Libc.NLM_F_REQUEST | Libc.NLM_F_DUMP,
                Sequence = (uint)family,
            },
            Family = (byte)family,
            Protocol = Libc.IPPROTO_TCP,
            States = 1u << Libc.TCP_LISTEN,
        };
        if (Libc.Send(fd, &request, (nuint)sizeof(Libc.InetDiagDumpRequest), 0) < 0)
        {
            return Marshal.GetLastPInvokeError();
        }

        while (true)
        {
            nint received;
            fixed (byte* start = buffer)
            {
                received = Libc.Recv(fd, start, (nuint)buffer.Length, 0);
            }

            if (received < 0)
            {
                int error = Marshal.GetLastPInvokeError();
                if (error == Libc.EINTR)
                {
                    continue;
                }

                return error;
            }

            int? done = Parse(buffer.AsSpan(0, (int)received), request.Header.Sequence, into);
            if (done is { } result)
            {
                return result;
            }
        }
    }

    /// <summary>Reads one datagram's messages: null while the dump goes on, else 0 at its end or the errno it failed with.</summary>
    private static unsafe int? Parse(ReadOnlySpan<byte> datagram, uint sequence, List<TcpListenerEntry> into)
    {
        while (datagram.Length >= sizeof(Libc.NetlinkMessageHeader))
        {
            Libc.NetlinkMessageHeader header = MemoryMarshal.Read<Libc.NetlinkMessageHeader>(datagram);
            if (header.Length < sizeof(Libc.NetlinkMessageHeader) || header.Length > datagram.Length)
            {
                return Libc.EINVAL;
            }

            ReadOnlySpan<byte> payload = datagram[sizeof(Libc.NetlinkMessageHeader)..(int)header.Length];
            datagram = datagram[(int)Math.Min(Align(header.Length), (uint)datagram.Length)..];
            if (header.Sequence != sequence)
            {
                continue;
            }

            switch (header.Type)
            {
                case Libc.NLMSG_DONE:
                    // The dump's own error, if it could not finish, is the negative int that follows.
                    return payload.Length >= sizeof(int) ? -Math.Min(MemoryMarshal.Read<int>(payload), 0) : 0;
                case Libc.NLMSG_ERROR:
                    return payload.Length >= sizeof(int) ? -MemoryMarshal.Read<int>(payload) : Libc.EINVAL;
                case Libc.SOCK_DIAG_BY_FAMILY when payload.Length >= sizeof(Libc.InetDiagMessage):
                    into.Add(Entry(payload));
                    break;
                default:
                    break;
            }
        }

        return null;
    }

    private static unsafe TcpListenerEntry Entry(ReadOnlySpan<byte> payload)
    {
        Libc.InetDiagMessage message = MemoryMarshal.Read<Libc.InetDiagMessage>(payload);
        bool v6Only = false;
        ReadOnlySpan<byte> attributes = payload[(int)Align((uint)sizeof(Libc.InetDiagMessage))..];
        while (attributes.Length >= 4)
        {
            ushort length = MemoryMarshal.Read<ushort>(attributes);
            ushort type = MemoryMarshal.Read<ushort>(attributes[2..]);
            if (length < 4 || length > attributes.Length)
            {
                break;
            }

            if (type == Libc.INET_DIAG_SKV6ONLY && length > 4)
            {
                v6Only = attributes[4] != 0;
            }

            attributes = attributes[(int)Math.Min(Align(length), (uint)attributes.Length)..];
        }

        ReadOnlySpan<byte> source = message.Id.Source;
        IPAddress address = message.Family == Libc.AF_INET ? new IPAddress(source[..4]) : new IPAddress(source);
        int port = BinaryPrimitives.ReverseEndianness(message.Id.SourcePort);
        ulong cookie = message.Id.CookieLow | ((ulong)message.Id.CookieHigh << 32);
        return new TcpListenerEntry(cookie, new IPEndPoint(address, port), v6Only);
    }

    private static uint Align(uint length) => (length + 3) & ~3u;
}
