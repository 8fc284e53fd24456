using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>The load runner's reading of gcannon's --ws --json report (scenarios/loadrun/gcannon.py), through its parse-gcannon command.</summary>
public class GcannonReportTests
{
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
    public async Task NoReportIsNoResponse()
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "parse-gcannon", "512"], TimeSpan.FromMinutes(1), "Segmentation fault\n");
        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Equal(JsonValueKind.Null, JsonDocument.Parse(result.Output).RootElement.GetProperty("requests").ValueKind);
    }
}
