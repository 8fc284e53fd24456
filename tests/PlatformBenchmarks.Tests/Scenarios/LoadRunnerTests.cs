using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using System.Xml.Linq;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>
/// scenarios/run.sh end to end, against a server process (the single-target run, which checks the CPU counted) and the
/// in-process server (the comparison), with two-second windows: when the test process is busy
/// with the other tests, its accept queue can overflow, and a dropped connection attempt is retried by the kernel after
/// one second, which can leave a one-second window without a single response: the method, the files it
/// writes and its failure on a non-2xx response. It needs wrk, which run.sh installs (as root) when it is missing.
/// </summary>
[Collection(SharedServer.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public sealed class LoadRunnerTests(ServerFixture server) : IDisposable
{
    private readonly string _out = Directory.CreateTempSubdirectory("loadrun-test-").FullName;

    public void Dispose() => Directory.Delete(_out, recursive: true);

    private Task<ProcessResult> RunAsync(string url, string tests, params string[] extra) =>
        ChildProcess.RunAsync("bash",
            ["scenarios/run.sh", "--url", url, "--tests", tests, "--out", _out, "--duration", "2", "--warmup", "2", "--primer", "2",
             "--no-pauses", .. extra],
            TimeSpan.FromMinutes(5));

    [Fact]
    public async Task AShortRunMeasuresEveryLevelAndWritesTheTableAndTheChart()
    {
        // A server process of its own, as a user runs one: the test process has children of other tests coming and
        // going, and a child that ends during a window takes its CPU time out of the tree's sum.
        int port = ServerProcess.FreePort();
        using Process process = ServerProcess.Start(["--urls", $"http://127.0.0.1:{port}"]);
        try
        {
            await ServerProcess.WaitForBannerAsync(process, TimeSpan.FromMinutes(1));
            await AssertAShortRunAsync($"test=http://127.0.0.1:{port}", process.Id);
        }
        finally
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
        }
    }

    private async Task AssertAShortRunAsync(string url, int pid)
    {
        ProcessResult result = await RunAsync(url, "plaintext,json", "--pid", pid.ToString(CultureInfo.InvariantCulture),
            "--levels", "concurrency=16,64;pipeline=256");

        Assert.True(result.ExitCode == 0, result.ToString());
        using var document = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "results.json")));
        JsonElement[] runs = [.. document.RootElement.GetProperty("runs").EnumerateArray()];
        // TFB's sequence per test: primer, warm-up, then the levels.
        Assert.Equal(["primer", "warmup", "level", "primer", "warmup", "level", "level"], runs.Select(r => r.GetProperty("phase").GetString()));
        JsonElement[] levels = [.. runs.Where(r => r.GetProperty("phase").GetString() == "level")];
        Assert.Equal(["plaintext 256", "json 16", "json 64"], levels.Select(r => $"{r.GetProperty("test").GetString()} {r.GetProperty("level").GetInt32()}"));
        Assert.All(levels, run =>
        {
            Assert.True(run.GetProperty("rps").GetDouble() > 0);
            Assert.Equal(0, run.GetProperty("non_2xx").GetInt32());
            Assert.True(run.GetProperty("server_cpu_us_per_response").GetDouble() > 0, "the --pid's CPU time was not counted");
            Assert.True(run.GetProperty("latency_ms").TryGetProperty("p99", out _));
        });
        JsonElement plaintext = levels[0];
        Assert.Equal(16, plaintext.GetProperty("pipeline").GetInt32());
        Assert.Equal(Math.Min(256, Environment.ProcessorCount), plaintext.GetProperty("threads").GetInt32());
        Assert.Empty(document.RootElement.GetProperty("failures").EnumerateArray());

        string markdown = await File.ReadAllTextAsync(Path.Combine(_out, "results.md"));
        Assert.Contains("| Round | Level | Target | Requests/s | p50 ms | p75 ms | p90 ms | p99 ms |", markdown, StringComparison.Ordinal);
        Assert.DoesNotContain("## Comparison", markdown, StringComparison.Ordinal); // one target: nothing to compare
        Assert.Equal(["bar test plaintext 256", "bar test json 16", "bar test json 64"], ChartBars());
        Assert.True(new FileInfo(Path.Combine(_out, "chart.png")).Length > 0);
    }

    [Fact]
    public async Task SeveralTargetsTakeTurnsEachRoundStartingWithTheNextAndTheReportComparesThemWithRatiosToTheBaseline()
    {
        // The same server under two names, the second one started by the runner (a command that holds a process, so
        // that the runner's start, CPU accounting and stop are exercised, in a session of its own), the first one the baseline.
        string url = server.BaseAddress.ToString().TrimEnd('/');
        ProcessResult result = await ChildProcess.RunAsync("bash",
            ["scenarios/run.sh", "--url", $"first={url}", "--pid", Environment.ProcessId.ToString(CultureInfo.InvariantCulture),
             "--url", $"second={url}", "--start", "exec sleep 600", "--rounds", "2", "--baseline", "first", "--tests", "json",
             "--levels", "concurrency=16", "--out", _out, "--duration", "1", "--warmup", "1", "--primer", "1", "--no-pauses", "--sessions"],
            TimeSpan.FromMinutes(5));

        Assert.True(result.ExitCode == 0, result.ToString());
        using var document = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "results.json")));
        JsonElement[] levels = [.. document.RootElement.GetProperty("runs").EnumerateArray().Where(r => r.GetProperty("phase").GetString() == "level")];
        // The recorded command re-runs as written: the start command keeps its quotes.
        Assert.Contains("--start 'exec sleep 600' --rounds 2", document.RootElement.GetProperty("meta").GetProperty("command").GetString(), StringComparison.Ordinal);
        // Each round starts one target later, so each is measured first once in two rounds.
        Assert.Equal(["1 first", "1 second", "2 second", "2 first"], levels.Select(r => $"{r.GetProperty("round").GetInt32()} {r.GetProperty("target").GetString()}"));
        int started = document.RootElement.GetProperty("targets").EnumerateArray().Single(t => t.GetProperty("name").GetString() == "second").GetProperty("pid").GetInt32();
        Assert.False(Directory.Exists($"/proc/{started}"), "the runner left the server it started running");

        string markdown = await File.ReadAllTextAsync(Path.Combine(_out, "results.md"));
        Assert.Contains("Means over 2 round(s); ratios against **first**", markdown, StringComparison.Ordinal);
        Assert.Contains("| Level | first req/s | first CPU µs | second req/s | second CPU µs | second / first req/s | second / first CPU |", markdown, StringComparison.Ordinal);
        string row = markdown.Split('\n').Single(line => line.StartsWith("| 16 |", StringComparison.Ordinal));
        double rpsRatio = double.Parse(row.Split('|', StringSplitOptions.TrimEntries)[6], CultureInfo.InvariantCulture);
        Assert.InRange(rpsRatio, 0.2, 5); // the same server: a ratio near 1, whatever the machine is doing
        Assert.Equal(["bar first json 16", "bar second json 16"], ChartBars());
    }

    private string[] ChartBars() =>
        [.. XDocument.Load(Path.Combine(_out, "chart.svg")).Descendants(XName.Get("g", "http://www.w3.org/2000/svg"))
            .Select(g => (string?)g.Attribute("id")).OfType<string>().Where(id => id.StartsWith("bar ", StringComparison.Ordinal))];

    [Fact]
    public async Task ARunFailsLoudlyWhenTheServerAnswersWithAnError()
    {
        // A base URL under a path the server does not serve: every request answers 404.
        ProcessResult result = await RunAsync(server.BaseAddress + "no-such-prefix", "json");

        Assert.True(result.ExitCode == 1, result.ToString());
        Assert.Contains("FAILED", result.Error, StringComparison.Ordinal);
        Assert.Contains("answered 404", result.Error, StringComparison.Ordinal);
    }
}
