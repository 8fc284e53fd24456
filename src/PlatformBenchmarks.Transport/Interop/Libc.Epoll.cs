using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport.Interop;

internal static partial class Libc
{
    public const int EPOLL_CLOEXEC = 0x80000;
    public const int EPOLL_CTL_ADD = 1;
    public const int EPOLL_CTL_DEL = 2;
    public const int EPOLL_CTL_MOD = 3;
    public const uint EPOLLIN = 0x001;
    public const uint EPOLLOUT = 0x004;
    public const uint EPOLLERR = 0x008;
    public const uint EPOLLHUP = 0x010;

    /// <summary>
    /// struct epoll_event is packed on x86-64 (12 bytes, the data at offset 4) and naturally aligned elsewhere (16 bytes,
    /// the data at offset 8); one blittable struct cannot be both, so events are read and written through these offsets.
    /// </summary>
    public static readonly int EpollEventSize = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 12 : 16;

    public static readonly int EpollDataOffset = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 4 : 8;

    [LibraryImport(Library, EntryPoint = "epoll_create1", SetLastError = true)]
    public static partial int EpollCreate1(int flags);

    [LibraryImport(Library, EntryPoint = "epoll_ctl", SetLastError = true)]
    public static unsafe partial int EpollCtl(int epfd, int op, int fd, void* epollEvent);

    [LibraryImport(Library, EntryPoint = "epoll_wait", SetLastError = true)]
    public static unsafe partial int EpollWait(int epfd, void* events, int maxEvents, int timeout);

    /// <summary>epoll_ctl with the event laid out for this architecture; the event's data is the file descriptor.</summary>
    public static unsafe int EpollControl(int epfd, int op, int fd, uint events)
    {
        byte* epollEvent = stackalloc byte[16];
        *(uint*)epollEvent = events;
        System.Runtime.CompilerServices.Unsafe.WriteUnaligned(epollEvent + EpollDataOffset, (ulong)(uint)fd);
        return EpollCtl(epfd, op, fd, epollEvent);
    }
}
