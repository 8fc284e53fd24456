using System.Diagnostics;
using System.Globalization;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>
/// Each listening socket takes the largest backlog the host allows (net.core.somaxconn), so a host raised for many
/// clients connecting at once gets what it was set to take. Read with ss (iproute2, which scripts/test.sh installs), in
/// a process of its own: the transport tests count their own descriptors. It tells a fixed backlog from the host's
/// limit only where somaxconn is above that fixed value (4,096 before).
/// </summary>
[Trait(TestCategory.Name, TestCategory.System)]
public class ListenBacklogTests
{
    [Theory]
    [InlineData("IoUring")]
    [InlineData("Epoll")]
    public async Task EveryListeningSocketTakesTheHostsLargestBacklog(string kind)
    {
        int somaxconn = int.Parse((await File.ReadAllTextAsync("/proc/sys/net/core/somaxconn")).Trim(), CultureInfo.InvariantCulture);
        int port = ServerProcess.FreePort();
        using Process server = ServerProcess.Start(["--urls", $"http://127.0.0.1:{port}", "--Transport:Kind", kind, "--Transport:ThreadCount", "2"]);
        try
        {
            await ServerProcess.ReadUntilAsync(server, "Application started.", TimeSpan.FromMinutes(1));

            // For a listening socket, ss's Send-Q column is the backlog the kernel keeps (sk_max_ack_backlog).
            using Process ss = Process.Start(new ProcessStartInfo("ss", ["-Hltn", $"sport = :{port}"]) { RedirectStandardOutput = true })!;
            string[] lines = (await ss.StandardOutput.ReadToEndAsync()).Split('\n', StringSplitOptions.RemoveEmptyEntries);
            await ss.WaitForExitAsync();

            Assert.Equal(2, lines.Length);
            Assert.All(lines, line => Assert.Equal(
                somaxconn.ToString(CultureInfo.InvariantCulture), line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[2]));
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }
}
