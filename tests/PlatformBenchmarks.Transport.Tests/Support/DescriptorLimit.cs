using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Transport.Tests.Support;

/// <summary>
/// Lowers the process's soft limit on open descriptors (RLIMIT_NOFILE) so that every new descriptor fails with EMFILE,
/// and puts it back on dispose. Process-wide: only for tests that run alone.
/// </summary>
/// <remarks>
/// The runtime opens a pipe for every thread it starts, and when that fails it aborts the process ("Out of memory"). So no
/// runtime thread may start while the limit is down: the thread pool is given idle workers beforehand, the timer and
/// socket event threads are started, and the test project runs without tiered compilation, whose background compiler
/// thread starts on demand (and exits when idle).
/// </remarks>
internal sealed partial class DescriptorLimit : IDisposable
{
    private const int RLIMIT_NOFILE = 7;

    private readonly Limit _saved;
    private bool _restored;

    private DescriptorLimit(Limit saved) => _saved = saved;

    /// <summary>New descriptors must be numbered below the limit; descriptor 0 is always open, so 1 leaves no room at all.</summary>
    public static DescriptorLimit Exhaust()
    {
        StartIdleWorkers(4 * Environment.ProcessorCount);
        StartTimerAndSocketThreads();
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

    /// <summary>
    /// Starts the runtime's timer thread and its sockets' event thread, which start on first use: a test that awaits a
    /// delay or connects a runtime socket while the limit is down would otherwise start them then.
    /// </summary>
    private static void StartTimerAndSocketThreads()
    {
        Task.Delay(1).GetAwaiter().GetResult();
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        Task<Socket> accepted = listener.AcceptAsync();
        client.ConnectAsync(listener.LocalEndPoint!).GetAwaiter().GetResult();
        accepted.GetAwaiter().GetResult().Dispose();
    }

    /// <summary>Makes sure the thread pool has at least <paramref name="count"/> workers, started and idle.</summary>
    private static void StartIdleWorkers(int count)
    {
        ThreadPool.GetMinThreads(out int workers, out int completionPorts);
        // At or below its minimum the pool starts a worker at once when work waits, rather than after a delay.
        ThreadPool.SetMinThreads(Math.Max(workers, count), completionPorts);
        using var started = new CountdownEvent(count);
        // Not disposed: a worker may still be about to wait on it after it was set.
        var release = new ManualResetEventSlim();
        for (int i = 0; i < count; i++)
        {
            ThreadPool.UnsafeQueueUserWorkItem(
                static state =>
                {
                    (CountdownEvent started, ManualResetEventSlim release) = ((CountdownEvent, ManualResetEventSlim))state!;
                    started.Signal();
                    release.Wait();
                },
                (started, release));
        }

        // Every worker holds one item until all have started, so count distinct threads are running; then all go idle.
        bool allStarted = started.Wait(TimeSpan.FromSeconds(30));
        release.Set();
        if (!allStarted)
        {
            throw new InvalidOperationException($"The thread pool did not start {count} workers.");
        }
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
