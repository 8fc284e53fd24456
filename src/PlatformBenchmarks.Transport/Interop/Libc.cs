using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport.Interop;

/// <summary>
/// The C library calls the transport makes, as source-generated P/Invokes over blittable types only, so Native AOT
/// needs nothing beyond libc. Every call sets errno; read it with <see cref="Marshal.GetLastPInvokeError"/>.
///
/// Memory: a pointer given to a call here belongs to the caller and must stay valid for the call only. The C library
/// keeps none after it returns; what the kernel keeps (io_uring's rings and buffers, a send in flight) is named where
/// it is owned: <see cref="IoUring.Ring"/>, <see cref="IoUring.ProvidedBufferRing"/>, <see cref="IoUring.IoUringLoop"/>.
/// </summary>
internal static partial class Libc
{
    private const string Library = "libc";

    // errno values (asm-generic, shared by x86-64 and arm64).
    public const int EPERM = 1;
    public const int EINTR = 4;
    public const int EAGAIN = 11;
    public const int ENOMEM = 12;
    public const int EINVAL = 22;
    public const int ENFILE = 23;
    public const int EMFILE = 24;
    public const int ECONNABORTED = 103;
    public const int ECONNRESET = 104;
    public const int ENOBUFS = 105;

    [LibraryImport(Library, EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);

    [LibraryImport(Library, EntryPoint = "read", SetLastError = true)]
    public static unsafe partial nint Read(int fd, void* buffer, nuint count);

    [LibraryImport(Library, EntryPoint = "write", SetLastError = true)]
    public static unsafe partial nint Write(int fd, void* buffer, nuint count);

    [LibraryImport(Library, EntryPoint = "eventfd", SetLastError = true)]
    public static partial int EventFd(uint initialValue, int flags);

    public const int EFD_CLOEXEC = 0x80000;
    public const int EFD_NONBLOCK = 0x800;

    /// <summary>The errno of the last call, as a negative number (the convention io_uring completions also use).</summary>
    public static int LastError => -Marshal.GetLastPInvokeError();
}
