using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>The load runner's reading of gcannon's --json report (scenarios/loadrun/gcannon.py), in its WebSocket and HTTP
/// modes, through its parse-gcannon command.</summary>
public class GcannonReportTests
{
    // gcannon 0.5.3's --json layout in HTTP mode with three templates (src/stats.c, stats_print_json): no ws_ fields, the
    // statuses of every response, the reconnections and a count per template.
    private const string HttpReport = """
        {
          "version": "0.5.3",
          "target": "127.0.0.1:9100",
          "mode": "http",
          "connections": 256,
          "threads": 1,
          "pipeline_depth": 1,
          "duration_sec": 8,
          "elapsed_sec": 8.000,
          "requests": 1200300,
          "responses": 1200000,
          "rps": 150000.00,
          "bandwidth_bps": 18000000.00,
          "bytes_read": 144000000,
          "latency_us": {
            "avg": 1700,
            "p50": 1650,
            "p90": 2100,
            "p99": 3125,
            "p999": 5400,
            "samples": 1200000
          },
          "status": {
            "2xx": 1199990,
            "3xx": 1,
            "4xx": 6,
            "5xx": 2,
            "other": 1
          },
          "errors": {
            "connect": 0,
            "read": 5,
            "timeout": 0
          },
          "reconnects": 120000,
          "per_template": [
            {"responses": 400000, "2xx": 399990},
            {"responses": 400000, "2xx": 400000},
            {"responses": 400000, "2xx": 400000}
          ]
        }
        """;

    // gcannon 0.5.3's --json layout in WebSocket mode (src/stats.c, stats_print_json).
    private const string Report = """
        {
          "version": "0.5.3",
          "target": "127.0.0.1:9100/ws",
          "mode": "websocket",
          "connections": 512,
          "threads": 2,
          "pipeline_depth": 1,
          "duration_sec": 5,
          "elapsed_sec": 5.000,
          "requests": 1000010,
          "responses": 1000000,
          "rps": 200000.00,
          "bandwidth_bps": 1400000.00,
          "bytes_read": 7000000,
          "latency_us": {
            "avg": 2500,
            "p50": 2400,
            "p90": 3100,
            "p99": 5200,
            "p999": 9000,
            "samples": 1000000
          },
          "ws_upgrades": 510,
          "ws_frames": 1000000,
          "status": {
            "2xx": 1000000,
            "3xx": 0,
            "4xx": 2,
            "5xx": 0,
            "other": 0
          },
          "errors": {
            "connect": 1,
            "read": 3,
            "timeout": 4
          },
          "reconnects": 0
        }
        """;

    [Fact]
    public async Task EchoesAreResponsesAndConnectionsThatDidNotUpgradeAreErrors()
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "parse-gcannon", "512"], TimeSpan.FromMinutes(1), "gcannon v0.5.3\n" + Report);
        Assert.True(result.ExitCode == 0, result.ToString());
        JsonElement parsed = JsonDocument.Parse(result.Output).RootElement;

        Assert.Equal(1_000_000, parsed.GetProperty("requests").GetInt64());
        Assert.Equal(200_000.0, parsed.GetProperty("rps").GetDouble());
        Assert.Equal(5.2, parsed.GetProperty("latency_ms").GetProperty("p99").GetDouble());
        JsonElement errors = parsed.GetProperty("socket_errors");

        // 1 connect error, and 2 of the 512 connections that never upgraded.
        Assert.Equal(3, errors.GetProperty("connect").GetInt32());
        Assert.Equal(3, errors.GetProperty("read").GetInt32());
        Assert.Equal(4, errors.GetProperty("timeout").GetInt32());
        Assert.Equal(2, parsed.GetProperty("non_2xx").GetInt32());
    }

    [Fact]
    public async Task InHttpModeEveryResponseCountsItsNon2xxStatusesAreCountedAndItsReconnectionsKept()
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "parse-gcannon", "256"], TimeSpan.FromMinutes(1), HttpReport);
        Assert.True(result.ExitCode == 0, result.ToString());
        JsonElement parsed = JsonDocument.Parse(result.Output).RootElement;

        // The responses of every status over gcannon's window: the figures CPU per response is divided by.
        Assert.Equal(1_200_000, parsed.GetProperty("requests").GetInt64());
        Assert.Equal(8.0, parsed.GetProperty("seconds").GetDouble());
        Assert.Equal(150_000.0, parsed.GetProperty("rps").GetDouble());
        JsonElement latency = parsed.GetProperty("latency_ms");
        Assert.Equal(1.7, latency.GetProperty("avg").GetDouble());
        Assert.Equal(1.65, latency.GetProperty("p50").GetDouble());
        Assert.Equal(2.1, latency.GetProperty("p90").GetDouble());
        Assert.Equal(3.125, latency.GetProperty("p99").GetDouble());
        // 3xx, 4xx, 5xx and other: gcannon's own unexpected statuses, each one failing the run as wrk's non-2xx does.
        Assert.Equal(10, parsed.GetProperty("non_2xx").GetInt32());
        JsonElement errors = parsed.GetProperty("socket_errors");
        // No WebSocket upgrade to count in HTTP mode: no connection is missing.
        Assert.Equal(0, errors.GetProperty("connect").GetInt32());
        Assert.False(parsed.TryGetProperty("ws_upgrades", out _));
        Assert.Equal(5, errors.GetProperty("read").GetInt32());
        Assert.Equal(0, errors.GetProperty("timeout").GetInt32());
        Assert.Equal(120_000, parsed.GetProperty("reconnects").GetInt64());
        Assert.Equal("gcannon 0.5.3", parsed.GetProperty("generator").GetString());
    }

    [Fact]
    public async Task TheReportNamesGcannonRecordsEachMeasuredCommandLineAndLeavesARunWithNon2xxOutOfTheComparison()
    {
        string folder = Directory.CreateTempSubdirectory("gcannon-report-test-").FullName;
        try
        {
            await File.WriteAllTextAsync(Path.Combine(folder, "results.json"), Results());

            ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "report", folder], TimeSpan.FromMinutes(1));

            Assert.True(result.ExitCode == 0, result.ToString());
            string[] lines = await File.ReadAllLinesAsync(Path.Combine(folder, "results.md"));
            Assert.Contains(lines, line => line.Contains("the load generator shares it (wrk 4.1.0, gcannon 0.5.3, at most 1 threads)", StringComparison.Ordinal));
            // Once per test, level and target, the binary by its name, whatever the path given.
            string[] commands = [.. lines.SkipWhile(line => line != "## gcannon commands").Where(line => line.StartsWith("- ", StringComparison.Ordinal))];
            Assert.Equal(
                ["- baseline 256, ours: `gcannon http://127.0.0.1:9101 --raw templates/baseline-1.raw -c 256 -t 1 -d 8s -p 1 --json`",
                 "- baseline 256, peer: `gcannon http://127.0.0.1:9102 --raw templates/baseline-1.raw -c 256 -t 1 -d 8s -p 1 --json`"],
                commands);
            // The peer's run saw non-2xx responses: its row shows them, and the comparison leaves it out, as for wrk.
            Assert.Contains("| 1 | 256 | peer | 100,000 | 0.90 | – | 1.20 | 2.00 | 0/0/0/0 | 3 | 4.00 | 2.00 |", lines);
            Assert.Contains("| 256 | 100k | 5.00 | – | – | – | – | – |", lines);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>Two targets' baseline at 256 connections by gcannon, in two rounds, the peer's with 3 non-2xx responses.</summary>
    private static string Results() => JsonSerializer.Serialize(new
    {
        meta = LoadRunDocument.Meta(2, "scenarios/run.sh --tests baseline --gcannon /opt/gcannon/gcannon", wrkThreadsMax: 1),
        targets = new[]
        {
            new { name = "ours", base_url = "http://127.0.0.1:9101", started_here = false, pid = 1, banner = Array.Empty<string>() },
            new { name = "peer", base_url = "http://127.0.0.1:9102", started_here = false, pid = 2, banner = Array.Empty<string>() },
        },
        runs = new[] { ("ours", 9101, 0, 5.0), ("peer", 9102, 3, 4.0) }.SelectMany(t => Enumerable.Range(1, 2).Select(round => new
        {
            round,
            phase = "level",
            test = "baseline",
            level = 256,
            target = t.Item1,
            tool = "gcannon",
            command = new[] { "/opt/gcannon/gcannon", $"http://127.0.0.1:{t.Item2}", "--raw", "templates/baseline-1.raw", "-c", "256", "-t", "1", "-d", "8s", "-p", "1", "--json" },
            generator = "gcannon 0.5.3",
            rps = 100_000.0,
            requests = 800_000,
            duration_s = 8,
            exit_code = t.Item3 > 0 ? 1 : 0,
            latency_ms = new { avg = 1.0, p50 = 0.9, p90 = 1.2, p99 = 2.0 },
            socket_errors = new { connect = 0, read = 0, write = 0, timeout = 0 },
            non_2xx = t.Item3,
            server_cpu_us_per_response = t.Item4,
            wrk_cpu_us_per_response = 2.0,
        })),
        failures = Array.Empty<string>(),
    });

    [Fact]
    public async Task NoReportIsNoResponse()
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "parse-gcannon", "512"], TimeSpan.FromMinutes(1), "Segmentation fault\n");
        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Equal(JsonValueKind.Null, JsonDocument.Parse(result.Output).RootElement.GetProperty("requests").ValueKind);
    }
}
