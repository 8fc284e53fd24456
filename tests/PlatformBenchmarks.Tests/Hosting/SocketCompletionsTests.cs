using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>
/// With Kestrel's socket transport the server turns the runtime's inline socket completions on at start-up, and that
/// really moves the work: under pipelined load the responses are sent from the runtime's socket threads, not from
/// thread-pool workers. With the project's own loops, where those sockets are the database's, it turns them on too. The
/// sending thread of each response is read with strace (each system call with its thread), so the test sees what the
/// process did, not what it says; a system test because it needs strace (scripts/test.sh installs it).
/// </summary>
[Trait(TestCategory.Name, TestCategory.System)]
public class SocketCompletionsTests
{
    private const string SocketThread = ".NET Sockets";
    private const string PoolWorker = ".NET TP Worker";

    [Fact]
    public async Task RequestsAreServedOnTheSocketThreadsWhenTheEnvironmentLeavesTheSwitchUnset()
    {
        ResponseSenders senders = await LoadServerAsync(switchValue: null);

        Assert.Contains("completions inline", senders.Banner, StringComparison.Ordinal);
        Assert.True(senders.Total >= Connections * Batches, senders.ToString());
        // Kestrel starts each connection on the pool, so a connection's first batch is answered there, and so is every
        // later one whose read finds its data already arrived (on a busy machine the pool thread can lag behind the
        // client by a batch or two); every read that waits completes, and is answered, on the socket thread that saw
        // it. Switched off, the pool sends nearly all of them (the test below), so a tenth tells the two apart.
        Assert.True(senders.Of(PoolWorker) <= senders.Total / 10, senders.ToString());
        Assert.True(senders.Of(SocketThread) >= senders.Total - (senders.Total / 10), senders.ToString());
    }

    [Fact]
    public async Task RequestsAreServedOnThePoolWhenTheEnvironmentTurnsTheSwitchOff()
    {
        // The counter-case: the observation above can tell the two apart, and an explicit choice is respected.
        ResponseSenders senders = await LoadServerAsync(switchValue: "0");

        Assert.Contains($"queued to the thread pool ({SocketCompletions.VariableName}=0", senders.Banner, StringComparison.Ordinal);
        Assert.True(senders.Total >= Connections * Batches, senders.ToString());
        Assert.True(senders.Of(SocketThread) <= senders.Total / 10, senders.ToString());
        Assert.True(senders.Of(PoolWorker) >= senders.Total - (senders.Total / 10), senders.ToString());
    }

    [Fact]
    public async Task TheProjectsLoopsAlsoGetInlineCompletions()
    {
        int port = ServerProcess.FreePort();
        using Process server = ServerProcess.Start(["--urls", $"http://127.0.0.1:{port}"], new Dictionary<string, string?> { [SocketCompletions.VariableName] = null });
        try
        {
            string banner = await ServerProcess.WaitForBannerAsync(server, TimeSpan.FromMinutes(1));

            Assert.DoesNotContain("Transport:  sockets", banner, StringComparison.Ordinal);
            Assert.Contains("Sockets:    completions inline on the runtime's epoll threads\n", banner, StringComparison.Ordinal);
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }

    private const int Connections = 4;
    private const int Batches = 200;

    /// <summary>How many of the server's sends that began with a response's status line each thread group made.</summary>
    private sealed record ResponseSenders(IReadOnlyDictionary<string, int> ByThread, string Banner)
    {
        public int Total => ByThread.Values.Sum();

        public int Of(string group) => ByThread.GetValueOrDefault(group);

        public override string ToString() =>
            $"Response sends by thread: {string.Join(", ", ByThread.Select(pair => $"{pair.Key} {pair.Value}"))}\n{Banner}";
    }

    /// <summary>Starts the published server, traces its sends while a few connections send it pipelined plaintext requests, and reads which threads sent the responses.</summary>
    private static async Task<ResponseSenders> LoadServerAsync(string? switchValue)
    {
        int port = ServerProcess.FreePort();
        // Kestrel's socket transport: only there do the runtime's socket threads serve the connections.
        using Process server = ServerProcess.Start(
            ["--urls", $"http://127.0.0.1:{port}", "--Transport:Kind", "Sockets"],
            new Dictionary<string, string?> { [SocketCompletions.VariableName] = switchValue });
        string trace = Path.Combine(Path.GetTempPath(), $"pb-sends-{Guid.NewGuid():N}.txt");
        try
        {
            string banner = await ServerProcess.WaitForBannerAsync(server, TimeSpan.FromMinutes(1));
            Dictionary<int, string> threads = ThreadGroups(server.Id);
            using Process strace = await StartTracingAsync(server.Id, trace);
            await Task.WhenAll(Enumerable.Range(0, Connections).Select(_ => SendPipelinedAsync(port, Batches, depth: 16)));

            // strace detaches on SIGINT and writes what it has; the threads it saw are still the server's.
            using (var interrupt = Process.Start("kill", ["-INT", strace.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
            {
                await interrupt.WaitForExitAsync();
            }

            await strace.WaitForExitAsync();
            foreach ((int id, string group) in ThreadGroups(server.Id))
            {
                threads[id] = group;
            }

            return new ResponseSenders(CountResponseSends(await File.ReadAllLinesAsync(trace), threads), banner);
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
            File.Delete(trace);
        }
    }

    /// <summary>Attaches strace to every thread of <paramref name="pid"/>, and returns once each of them is traced.</summary>
    private static async Task<Process> StartTracingAsync(int pid, string output)
    {
        // -f follows the threads the process starts later; -s 12 keeps the start of each buffer, enough for a status line.
        Process strace = Process.Start(new ProcessStartInfo("strace", ["-f", "-qq", "-s", "12", "-e", "trace=sendto,sendmsg,write,writev", "-p", pid.ToString(System.Globalization.CultureInfo.InvariantCulture), "-o", output])
        {
            RedirectStandardError = true,
        }) ?? throw new InvalidOperationException("strace did not start.");
        for (int attempt = 0; attempt < 600; attempt++)
        {
            // The kernel names each thread's tracer in its status: once all of them name one, no send goes unseen.
            if (Directory.GetDirectories($"/proc/{pid}/task").All(IsTraced))
            {
                return strace;
            }

            if (strace.HasExited)
            {
                Assert.Fail($"strace could not attach: {await strace.StandardError.ReadToEndAsync()}");
            }

            await Task.Delay(100);
        }

        throw new TimeoutException("strace did not attach to every thread of the server within a minute.");
    }

    private static bool IsTraced(string task)
    {
        try
        {
            return File.ReadLines(Path.Combine(task, "status")).Any(static line => line.StartsWith("TracerPid:", StringComparison.Ordinal) && line.AsSpan(10).Trim() is not "0");
        }
        catch (IOException)
        {
            // The thread ended while it was read: it sends nothing more.
            return true;
        }
    }

    /// <summary>Each thread of <paramref name="pid"/> by its name, cut to the group: ".NET Sockets", ".NET TP Worker", or its own.</summary>
    private static Dictionary<int, string> ThreadGroups(int pid)
    {
        var groups = new Dictionary<int, string>();
        foreach (string task in Directory.GetDirectories($"/proc/{pid}/task"))
        {
            string name = File.ReadAllText(Path.Combine(task, "comm")).Trim();
            groups[int.Parse(Path.GetFileName(task), System.Globalization.CultureInfo.InvariantCulture)] =
                name.StartsWith(SocketThread, StringComparison.Ordinal) ? SocketThread : name.StartsWith(PoolWorker, StringComparison.Ordinal) ? PoolWorker : name;
        }

        return groups;
    }

    /// <summary>Counts, by thread group, the traced sends whose first buffer starts with a response's status line.</summary>
    private static Dictionary<string, int> CountResponseSends(IEnumerable<string> lines, IReadOnlyDictionary<int, string> threads)
    {
        // A line of strace -f -o: "TID sendmsg(FD, {... iov_base=\"HTTP/1.1 200\"...", or "TID sendto(FD, \"HTTP/1.1 200\"...".
        var counts = new Dictionary<string, int>();
        foreach (string line in lines)
        {
            if (!line.Contains("\"HTTP/1.1 200", StringComparison.Ordinal))
            {
                continue;
            }

            int id = int.Parse(line.AsSpan(0, line.IndexOf(' ', StringComparison.Ordinal)), System.Globalization.CultureInfo.InvariantCulture);
            string group = threads.GetValueOrDefault(id, "exited thread");
            counts[group] = counts.GetValueOrDefault(group) + 1;
        }

        return counts;
    }

    private static async Task SendPipelinedAsync(int port, int batches, int depth)
    {
        byte[] request = Encoding.ASCII.GetBytes("GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\nConnection: keep-alive\r\n\r\n");
        byte[] batch = [.. Enumerable.Repeat(request, depth).SelectMany(r => r)];
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(IPAddress.Loopback, port);
        byte[] buffer = new byte[64 * 1024];
        for (int i = 0; i < batches; i++)
        {
            await socket.SendAsync(batch);
            int responses = 0;
            while (responses < depth)
            {
                int read = await socket.ReceiveAsync(buffer);
                Assert.NotEqual(0, read);
                responses += CountOf(buffer.AsSpan(0, read), "HTTP/1.1 200"u8);
            }
        }
    }

    private static int CountOf(ReadOnlySpan<byte> text, ReadOnlySpan<byte> value)
    {
        // Responses never split a status line across reads here: each batch's answers come in one send, well below the buffer.
        int count = 0;
        for (int at = text.IndexOf(value); at >= 0; at = text.IndexOf(value))
        {
            count++;
            text = text[(at + value.Length)..];
        }

        return count;
    }
}
