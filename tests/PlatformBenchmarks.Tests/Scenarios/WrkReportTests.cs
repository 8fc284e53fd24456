using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>The load runner's reading of wrk's report (scenarios/loadrun/wrk.py), through its parse-wrk command.</summary>
public class WrkReportTests
{
    private static readonly string[] s_socketErrors = ["connect", "read", "write", "timeout"];

    private static async Task<JsonElement> ParseAsync(string report)
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "parse-wrk"], TimeSpan.FromMinutes(1), report);
        Assert.True(result.ExitCode == 0, result.ToString());
        return JsonDocument.Parse(result.Output).RootElement.Clone();
    }

    [Fact]
    public async Task EveryFigureOfAReportWithErrorsIsRead()
    {
        const string report = """
            Running 15s test @ http://127.0.0.1:8080/plaintext
              2 threads and 256 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency   655.00us    1.20ms  20.05ms   95.00%
                Req/Sec   250.00k    10.00k  300.00k    70.00%
              Latency Distribution
                 50%  412.00us
                 75%    1.01ms
                 90%    2.00s
                 99%    1.50m
              7500000 requests in 15.00s, 900.00MB read
              Socket errors: connect 1, read 2, write 3, timeout 4
              Non-2xx or 3xx responses: 7
            Requests/sec: 499999.50
            Transfer/sec:     60.00MB
            """;

        JsonElement parsed = await ParseAsync(report);

        Assert.Equal(7_500_000, parsed.GetProperty("requests").GetInt64());
        Assert.Equal(15.0, parsed.GetProperty("seconds").GetDouble());
        Assert.Equal(499_999.5, parsed.GetProperty("rps").GetDouble());
        JsonElement latency = parsed.GetProperty("latency_ms");
        Assert.Equal(0.655, latency.GetProperty("avg").GetDouble());
        Assert.Equal(20.05, latency.GetProperty("max").GetDouble());
        Assert.Equal(0.412, latency.GetProperty("p50").GetDouble());
        Assert.Equal(1.01, latency.GetProperty("p75").GetDouble());
        Assert.Equal(2000.0, latency.GetProperty("p90").GetDouble());
        Assert.Equal(90_000.0, latency.GetProperty("p99").GetDouble());
        JsonElement errors = parsed.GetProperty("socket_errors");
        Assert.Equal([1, 2, 3, 4], s_socketErrors.Select(k => errors.GetProperty(k).GetInt32()));
        Assert.Equal(7, parsed.GetProperty("non_2xx").GetInt32());
    }

    [Fact]
    public async Task ACleanReportWithoutTheErrorLinesCountsNoErrors()
    {
        // wrk prints the socket-error and non-2xx lines only when they are not zero.
        const string report = """
            Running 3s test @ http://127.0.0.1:8080/json
              2 threads and 16 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency   150.00us   50.00us   2.00ms   90.00%
              Latency Distribution
                 50%  140.00us
                 75%  160.00us
                 90%  200.00us
                 99%  400.00us
              300000 requests in 3.00s, 40.00MB read
            Requests/sec: 100000.00
            """;

        JsonElement parsed = await ParseAsync(report);

        Assert.Equal(300_000, parsed.GetProperty("requests").GetInt64());
        Assert.All(parsed.GetProperty("socket_errors").EnumerateObject(), e => Assert.Equal(0, e.Value.GetInt32()));
        Assert.Equal(0, parsed.GetProperty("non_2xx").GetInt32());
    }

    [Fact]
    public async Task APercentileBelowALowerOneIsLeftOutAsWrksOwnError()
    {
        // wrk 4.1 printed this at 16384 pipelined connections: a p99 of zero under a p90 of 636 ms.
        const string report = """
            Running 15s test @ http://127.0.0.1:8080/plaintext
              2 threads and 16384 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency   286.12ms  190.61ms   1.07s    70.63%
              Latency Distribution
                 50%  241.52ms
                 75%  421.21ms
                 90%  635.87ms
                 99%    0.00us
              4442384 requests in 15.25s, 538.05MB read
            Requests/sec: 291266.22
            """;

        JsonElement parsed = await ParseAsync(report);

        Assert.Equal(JsonValueKind.Null, parsed.GetProperty("latency_ms").GetProperty("p99").ValueKind);
        Assert.Equal(635.87, parsed.GetProperty("latency_ms").GetProperty("p90").GetDouble());
        Assert.Contains("p99", Assert.Single(parsed.GetProperty("warnings").EnumerateArray()).GetString(), StringComparison.Ordinal);
    }
}
