using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport.Interop;

/// <summary>
/// io_uring through the raw system calls (glibc has no wrappers and liburing would be a native library to ship), and
/// the kernel's structures from linux/io_uring.h as blittable structs. The system call numbers are the same on every
/// architecture (they were added after the tables were unified).
/// </summary>
internal static partial class Libc
{
    private const long SYS_io_uring_setup = 425;
    private const long SYS_io_uring_enter = 426;
    private const long SYS_io_uring_register = 427;

    public const int ENOSYS = 38;
    public const int ECANCELED = 125;
    public const int EBUSY = 16;
    public const int ETIME = 62;

    // io_uring_setup flags.
    public const uint IORING_SETUP_CQSIZE = 1U << 3;
    public const uint IORING_SETUP_R_DISABLED = 1U << 6;
    public const uint IORING_SETUP_SUBMIT_ALL = 1U << 7;
    public const uint IORING_SETUP_SINGLE_ISSUER = 1U << 12;
    public const uint IORING_SETUP_DEFER_TASKRUN = 1U << 13;

    public const uint IORING_FEAT_SINGLE_MMAP = 1U << 0;
    public const uint IORING_FEAT_NODROP = 1U << 1;

    public const uint IORING_ENTER_GETEVENTS = 1U << 0;
    public const uint IORING_ENTER_EXT_ARG = 1U << 3;

    public const long IORING_OFF_SQ_RING = 0;
    public const long IORING_OFF_SQES = 0x10000000;

    public const uint IORING_REGISTER_ENABLE_RINGS = 12;
    public const uint IORING_REGISTER_PBUF_RING = 22;
    public const uint IORING_UNREGISTER_PBUF_RING = 23;

    // Opcodes.
    public const byte IORING_OP_SENDMSG = 9;
    public const byte IORING_OP_ACCEPT = 13;
    public const byte IORING_OP_ASYNC_CANCEL = 14;
    public const byte IORING_OP_CLOSE = 19;
    public const byte IORING_OP_READ = 22;
    public const byte IORING_OP_SEND = 26;
    public const byte IORING_OP_RECV = 27;

    // sqe->flags.
    public const byte IOSQE_BUFFER_SELECT = 1 << 5;

    public const ushort IORING_RECV_MULTISHOT = 1 << 1;
    public const uint IORING_ASYNC_CANCEL_ALL = 1U << 0;
    public const uint IORING_ASYNC_CANCEL_FD = 1U << 1;
    public const uint IORING_ASYNC_CANCEL_ANY = 1U << 2;

    public const uint IORING_CQE_F_MORE = 1U << 1;
    public const int IORING_CQE_BUFFER_SHIFT = 16;

    public const int PROT_READ = 0x1;
    public const int PROT_WRITE = 0x2;
    public const int MAP_SHARED = 0x01;
    public const int MAP_POPULATE = 0x8000;

    [LibraryImport(Library, EntryPoint = "syscall", SetLastError = true)]
    private static partial long Syscall(long number, nint a1, nint a2, nint a3, nint a4, nint a5, nint a6);

    public static unsafe int IoUringSetup(uint entries, IoUringParams* parameters) =>
        (int)Syscall(SYS_io_uring_setup, (nint)entries, (nint)parameters, 0, 0, 0, 0);

    public static int IoUringEnter(int ring, uint toSubmit, uint minComplete, uint flags) =>
        (int)Syscall(SYS_io_uring_enter, ring, (nint)toSubmit, (nint)minComplete, (nint)flags, 0, 0);

    public static unsafe int IoUringEnter(int ring, uint toSubmit, uint minComplete, uint flags, GetEventsArgument* argument) =>
        (int)Syscall(SYS_io_uring_enter, ring, (nint)toSubmit, (nint)minComplete, (nint)flags, (nint)argument, sizeof(GetEventsArgument));

    public static unsafe int IoUringRegister(int ring, uint opcode, void* argument, uint count) =>
        (int)Syscall(SYS_io_uring_register, ring, (nint)opcode, (nint)argument, (nint)count, 0, 0);

    [LibraryImport(Library, EntryPoint = "mmap", SetLastError = true)]
    public static unsafe partial void* MemoryMap(void* address, nuint length, int protection, int flags, int fd, long offset);

    [LibraryImport(Library, EntryPoint = "munmap", SetLastError = true)]
    public static unsafe partial int MemoryUnmap(void* address, nuint length);

    public static readonly unsafe void* MapFailed = (void*)-1;

    /// <summary>struct io_uring_getevents_arg: with IORING_ENTER_EXT_ARG, a wait with a timeout.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct GetEventsArgument
    {
        public ulong SignalMask;
        public uint SignalMaskSize;
        public uint MinWaitMicroseconds;
        public ulong Timeout;
    }

    /// <summary>struct __kernel_timespec.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    /// <summary>struct io_uring_params (120 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct IoUringParams
    {
        public uint SqEntries;
        public uint CqEntries;
        public uint Flags;
        public uint SqThreadCpu;
        public uint SqThreadIdle;
        public uint Features;
        public uint WqFd;
        public uint Reserved0;
        public uint Reserved1;
        public uint Reserved2;
        public SqRingOffsets SqOffsets;
        public CqRingOffsets CqOffsets;
    }

    /// <summary>struct io_sqring_offsets.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SqRingOffsets
    {
        public uint Head;
        public uint Tail;
        public uint RingMask;
        public uint RingEntries;
        public uint Flags;
        public uint Dropped;
        public uint Array;
        public uint Reserved1;
        public ulong UserAddress;
    }

    /// <summary>struct io_cqring_offsets.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct CqRingOffsets
    {
        public uint Head;
        public uint Tail;
        public uint RingMask;
        public uint RingEntries;
        public uint Overflow;
        public uint Cqes;
        public uint Flags;
        public uint Reserved1;
        public ulong UserAddress;
    }

    /// <summary>struct io_uring_sqe (64 bytes), with the unions named for the fields this transport uses.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 64)]
    public struct SubmissionEntry
    {
        [FieldOffset(0)] public byte Opcode;
        [FieldOffset(1)] public byte Flags;
        [FieldOffset(2)] public ushort IoPriority;
        [FieldOffset(4)] public int Fd;
        [FieldOffset(8)] public ulong Offset;
        [FieldOffset(16)] public ulong Address;
        [FieldOffset(24)] public uint Length;
        [FieldOffset(28)] public uint OpFlags;
        [FieldOffset(32)] public ulong UserData;
        [FieldOffset(40)] public ushort BufferGroup;
        [FieldOffset(42)] public ushort Personality;
        [FieldOffset(44)] public int FileIndex;
        [FieldOffset(48)] public ulong Address3;
        [FieldOffset(56)] public ulong Padding;
    }

    /// <summary>struct io_uring_cqe (16 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct CompletionEntry
    {
        public ulong UserData;
        public int Result;
        public uint Flags;
    }

    /// <summary>struct io_uring_buf_reg (40 bytes): registers a ring of provided buffers.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct BufferRingRegistration
    {
        public ulong RingAddress;
        public uint RingEntries;
        public ushort GroupId;
        public ushort Flags;
        public ulong Reserved0;
        public ulong Reserved1;
        public ulong Reserved2;
    }

    /// <summary>struct io_uring_buf (16 bytes); the ring's tail overlays the last two bytes of entry 0.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct ProvidedBuffer
    {
        public ulong Address;
        public uint Length;
        public ushort BufferId;
        public ushort Reserved;
    }
}
