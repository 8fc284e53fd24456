using System.Diagnostics;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>The server process's start-up output, in the order the tools that wait for its ready line rely on.</summary>
public class StartUpWarmUpTests
{
    private const string ReadyLine = "Application started.";

    [Fact]
    public async Task TheReadyLineComesOnlyAfterTheWarmUpAndTheWholeBanner()
    {
        // No database (a refused port): the probe and the cache's warm-up fail fast, and their outcome is on the banner.
        using Process server = ServerProcess.Start(["--urls", $"http://127.0.0.1:{ServerProcess.FreePort()}"]);
        try
        {
            List<string> lines = await ServerProcess.ReadUntilAsync(server, ReadyLine, TimeSpan.FromMinutes(1));

            int ready = lines.FindIndex(line => line.Contains(ReadyLine, StringComparison.Ordinal));
            Assert.All(["PlatformBenchmarks ", "  Listening:", "  Database:   UNAVAILABLE", "  Cache:      world cache not warmed", "  Dataset:", "  Static:"], start =>
            {
                int at = lines.FindIndex(line => line.StartsWith(start, StringComparison.Ordinal));
                Assert.True(at >= 0 && at < ready, $"'{start}' is not before the ready line:\n{string.Join('\n', lines)}");
            });
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }
}
