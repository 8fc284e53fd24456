using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport.Tests.Support;

/// <summary>
/// Lowers the process's soft limit on open descriptors (RLIMIT_NOFILE) so that every new descriptor fails with EMFILE,
/// and puts it back on dispose. Process-wide: only for tests that run alone.
/// </summary>
internal sealed partial class DescriptorLimit : IDisposable
{
    private const int RLIMIT_NOFILE = 7;

    private readonly Limit _saved;
    private bool _restored;

    private DescriptorLimit(Limit saved) => _saved = saved;

    /// <summary>New descriptors must be numbered below the limit; descriptor 0 is always open, so 1 leaves no room at all.</summary>
    public static DescriptorLimit Exhaust()
    {
        if (GetLimit(RLIMIT_NOFILE, out Limit saved) != 0)
        {
            throw new InvalidOperationException($"getrlimit failed: errno {Marshal.GetLastPInvokeError()}");
        }

        var lowered = new Limit { Soft = 1, Hard = saved.Hard };
        if (SetLimit(RLIMIT_NOFILE, in lowered) != 0)
        {
            throw new InvalidOperationException($"setrlimit failed: errno {Marshal.GetLastPInvokeError()}");
        }

        return new DescriptorLimit(saved);
    }

    public void Dispose()
    {
        if (!_restored)
        {
            _ = SetLimit(RLIMIT_NOFILE, in _saved);
            _restored = true;
        }
    }

    [LibraryImport("libc", EntryPoint = "getrlimit", SetLastError = true)]
    private static partial int GetLimit(int resource, out Limit limit);

    [LibraryImport("libc", EntryPoint = "setrlimit", SetLastError = true)]
    private static partial int SetLimit(int resource, in Limit limit);

    [StructLayout(LayoutKind.Sequential)]
    private struct Limit
    {
        public ulong Soft;
        public ulong Hard;
    }
}
