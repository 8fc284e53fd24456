using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport.Interop;

internal static partial class Libc
{
    public const int AF_INET = 2;
    public const int AF_INET6 = 10;
    public const int SOCK_STREAM = 1;
    public const int SOCK_NONBLOCK = 0x800;
    public const int SOCK_CLOEXEC = 0x80000;
    public const int SOL_SOCKET = 1;
    public const int SO_REUSEADDR = 2;
    public const int SO_LINGER = 13;
    public const int SO_REUSEPORT = 15;
    public const int IPPROTO_TCP = 6;
    public const int TCP_NODELAY = 1;
    public const int IPPROTO_IPV6 = 41;
    public const int IPV6_V6ONLY = 26;
    public const int SHUT_WR = 1;
    public const int MSG_NOSIGNAL = 0x4000;
    public const int SO_COOKIE = 57;
    public const int TCP_LISTEN = 10;

    // sock_diag over netlink: the kernel's list of sockets (what ss(8) reads).
    public const int AF_NETLINK = 16;
    public const int SOCK_DGRAM = 2;
    public const int NETLINK_SOCK_DIAG = 4;
    public const ushort NLM_F_REQUEST = 0x1;
    public const ushort NLM_F_DUMP = 0x300;
    public const ushort NLMSG_ERROR = 2;
    public const ushort NLMSG_DONE = 3;
    public const ushort SOCK_DIAG_BY_FAMILY = 20;
    public const ushort INET_DIAG_SKV6ONLY = 11;

    [LibraryImport(Library, EntryPoint = "socket", SetLastError = true)]
    public static partial int Socket(int domain, int type, int protocol);

    [LibraryImport(Library, EntryPoint = "setsockopt", SetLastError = true)]
    public static unsafe partial int SetSockOpt(int fd, int level, int name, void* value, uint length);

    [LibraryImport(Library, EntryPoint = "getsockopt", SetLastError = true)]
    public static unsafe partial int GetSockOpt(int fd, int level, int name, void* value, uint* length);

    [LibraryImport(Library, EntryPoint = "bind", SetLastError = true)]
    public static unsafe partial int Bind(int fd, SocketAddress* address, uint length);

    [LibraryImport(Library, EntryPoint = "listen", SetLastError = true)]
    public static partial int Listen(int fd, int backlog);

    [LibraryImport(Library, EntryPoint = "getsockname", SetLastError = true)]
    public static unsafe partial int GetSockName(int fd, SocketAddress* address, uint* length);

    [LibraryImport(Library, EntryPoint = "accept4", SetLastError = true)]
    public static unsafe partial int Accept4(int fd, SocketAddress* address, uint* length, int flags);

    [LibraryImport(Library, EntryPoint = "recv", SetLastError = true)]
    public static unsafe partial nint Recv(int fd, void* buffer, nuint length, int flags);

    [LibraryImport(Library, EntryPoint = "send", SetLastError = true)]
    public static unsafe partial nint Send(int fd, void* buffer, nuint length, int flags);

    [LibraryImport(Library, EntryPoint = "sendmsg", SetLastError = true)]
    public static unsafe partial nint SendMsg(int fd, MessageHeader* message, int flags);

    [LibraryImport(Library, EntryPoint = "shutdown", SetLastError = true)]
    public static partial int Shutdown(int fd, int how);

    public static unsafe int SetOption(int fd, int level, int name, int value) => SetSockOpt(fd, level, name, &value, sizeof(int));

    /// <summary>Makes the next close(2) send a reset instead of a FIN (SO_LINGER on, timeout 0).</summary>
    public static unsafe void SetResetOnClose(int fd)
    {
        Linger linger = new() { OnOff = 1, Seconds = 0 };
        _ = SetSockOpt(fd, SOL_SOCKET, SO_LINGER, &linger, (uint)sizeof(Linger));
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Linger
    {
        public int OnOff;
        public int Seconds;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct IoVector
    {
        public unsafe void* Base;
        public nuint Length;
    }

    /// <summary>struct msghdr.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct MessageHeader
    {
        public unsafe void* Name;
        public uint NameLength;
        public unsafe IoVector* Vectors;
        public nuint VectorCount;
        public unsafe void* Control;
        public nuint ControlLength;
        public int Flags;
    }

    /// <summary>Room for a sockaddr_in or a sockaddr_in6 (28 bytes), in network byte order where the kernel wants it.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SocketAddress
    {
        public ushort Family;
        public ushort Port;
        public Bytes24 Rest;

        public const uint Size = 28;
    }

    [InlineArray(24)]
    public struct Bytes24
    {
        private byte _element;
    }

    [InlineArray(16)]
    public struct Bytes16
    {
        private byte _element;
    }

    /// <summary>struct nlmsghdr.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct NetlinkMessageHeader
    {
        public uint Length;
        public ushort Type;
        public ushort Flags;
        public uint Sequence;
        public uint PortId;
    }

    /// <summary>struct inet_diag_sockid: ports and addresses in network byte order, the cookie as two halves, low first.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct InetDiagSocketId
    {
        public ushort SourcePort;
        public ushort DestinationPort;
        public Bytes16 Source;
        public Bytes16 Destination;
        public uint Interface;
        public uint CookieLow;
        public uint CookieHigh;
    }

    /// <summary>A netlink header followed by struct inet_diag_req_v2: a dump of one family's TCP sockets in the given states.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct InetDiagDumpRequest
    {
        public NetlinkMessageHeader Header;
        public byte Family;
        public byte Protocol;
        public byte Extensions;
        public byte Pad;
        public uint States;
        public InetDiagSocketId Id;
    }

    /// <summary>struct inet_diag_msg, one socket of a dump; attributes (struct rtattr) follow it.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct InetDiagMessage
    {
        public byte Family;
        public byte State;
        public byte Timer;
        public byte Retransmits;
        public InetDiagSocketId Id;
        public uint Expires;
        public uint ReceiveQueue;
        public uint SendQueue;
        public uint Uid;
        public uint Inode;
    }
}
