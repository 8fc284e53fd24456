using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>
/// With Kestrel's socket transport the server turns the runtime's inline socket completions on at start-up, and that
/// really moves the work: a server process under load spends its CPU on the runtime's socket threads, not on thread-pool
/// workers. With the project's own loops, where those sockets are the database's, it turns them on too. Read from the
/// kernel's per-thread accounting (/proc/PID/task/*/stat), so the test sees what the process did, not what it says.
/// </summary>
public class SocketCompletionsTests
{
    [Fact]
    public async Task RequestsAreServedOnTheSocketThreadsWhenTheEnvironmentLeavesTheSwitchUnset()
    {
        ThreadCpu cpu = await LoadServerAsync(switchValue: null);

        Assert.Contains("completions inline", cpu.Banner, StringComparison.Ordinal);
        Assert.True(cpu.SocketThreads >= 4 * Math.Max(cpu.PoolWorkers, 1), cpu.ToString());
    }

    [Fact]
    public async Task RequestsAreServedOnThePoolWhenTheEnvironmentTurnsTheSwitchOff()
    {
        // The counter-case: the measurement above can tell the two apart, and an explicit choice is respected.
        ThreadCpu cpu = await LoadServerAsync(switchValue: "0");

        Assert.Contains($"queued to the thread pool ({SocketCompletions.VariableName}=0", cpu.Banner, StringComparison.Ordinal);
        Assert.True(cpu.PoolWorkers > cpu.SocketThreads, cpu.ToString());
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

    private sealed record ThreadCpu(long SocketThreads, long PoolWorkers, string Banner)
    {
        public override string ToString() => $"CPU ticks: socket threads {SocketThreads}, pool workers {PoolWorkers}\n{Banner}";
    }

    /// <summary>Starts the published server, sends it pipelined plaintext requests on a few connections, and reads where its CPU went.</summary>
    private static async Task<ThreadCpu> LoadServerAsync(string? switchValue)
    {
        int port = ServerProcess.FreePort();
        // Kestrel's socket transport: only there do the runtime's socket threads serve the connections.
        using Process server = ServerProcess.Start(
            ["--urls", $"http://127.0.0.1:{port}", "--Transport:Kind", "Sockets"],
            new Dictionary<string, string?> { [SocketCompletions.VariableName] = switchValue });
        try
        {
            string banner = await ServerProcess.WaitForBannerAsync(server, TimeSpan.FromMinutes(1));
            await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => SendPipelinedAsync(port, batches: 1500, depth: 16)));
            return ReadThreadCpu(server.Id) with { Banner = banner };
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
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

    /// <summary>utime + stime of the process's threads, summed by the names the runtime gives them.</summary>
    private static ThreadCpu ReadThreadCpu(int pid)
    {
        long sockets = 0, workers = 0;
        foreach (string task in Directory.GetDirectories($"/proc/{pid}/task"))
        {
            string name = File.ReadAllText(Path.Combine(task, "comm")).Trim();
            string stat = File.ReadAllText(Path.Combine(task, "stat"));
            // Fields after the parenthesised name: state is field 3, utime and stime fields 14 and 15.
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            long ticks = long.Parse(fields[11], System.Globalization.CultureInfo.InvariantCulture) + long.Parse(fields[12], System.Globalization.CultureInfo.InvariantCulture);
            if (name.StartsWith(".NET Sockets", StringComparison.Ordinal))
            {
                sockets += ticks;
            }
            else if (name.StartsWith(".NET TP Worker", StringComparison.Ordinal))
            {
                workers += ticks;
            }
        }

        return new ThreadCpu(sockets, workers, string.Empty);
    }
}
