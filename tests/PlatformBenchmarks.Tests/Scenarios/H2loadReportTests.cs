using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>The load runner's reading of h2load's report (scenarios/loadrun/h2load.py), through its parse-h2load command.</summary>
public class H2loadReportTests
{
    // nghttp2 1.52's h2load (Debian 12's nghttp2-client) over TLS, -D 5: the lines it prints after its progress.
    private const string Report = """
        starting benchmark...
        spawning thread #0: 128 total client(s). Timing-based test with 0s of warm-up time and 5s of main duration for measurements.
        TLS Protocol: TLSv1.3
        Cipher: TLS_AES_128_GCM_SHA256
        Server Temp Key: X25519 253 bits
        Application protocol: h2
        Main benchmark duration is started for client #0.

        finished in 5.00s, 200000.00 req/s, 6.10MB/s
        requests: 1000000 total, 1000100 started, 1000000 done, 999990 succeeded, 10 failed, 3 errored, 4 timeout
        status codes: 999990 2xx, 0 3xx, 6 4xx, 1 5xx
        traffic: 30.52MB (32000000) total, 7.63MB (8000000) headers (space savings 92.15%), 976.56KB (1000000) data
                             min         max         mean         sd        +/- sd
        time for request:       73us     59.53ms      1.47ms       821us    98.00%
        time for connect:     1.77ms      2.10ms      1.92ms       151us    50.00%
        time to 1st byte:    60.43ms     61.57ms     61.04ms       597us    75.00%
        req/s           :    1562.43     1580.39     1571.95        4.10    75.00%
        """;

    [Fact]
    public async Task Only2xxResponsesCountAndTheLatencyIsTheMeanAndMaximum()
    {
        JsonElement parsed = await ParseAsync(Report);

        Assert.Equal(999_990, parsed.GetProperty("requests").GetInt64());
        Assert.Equal(5.0, parsed.GetProperty("seconds").GetDouble());
        Assert.Equal(199_998.0, parsed.GetProperty("rps").GetDouble());
        Assert.Equal(7, parsed.GetProperty("non_2xx").GetInt32());
        JsonElement latency = parsed.GetProperty("latency_ms");
        Assert.Equal(1.47, latency.GetProperty("avg").GetDouble());
        Assert.Equal(0.821, latency.GetProperty("stdev").GetDouble());
        Assert.Equal(59.53, latency.GetProperty("max").GetDouble());
        JsonElement errors = parsed.GetProperty("socket_errors");
        Assert.Equal(0, errors.GetProperty("connect").GetInt32());
        Assert.Equal(3, errors.GetProperty("read").GetInt32());
        Assert.Equal(4, errors.GetProperty("timeout").GetInt32());
    }

    [Fact]
    public async Task AConnectionWithoutH2IsAConnectError()
    {
        string report = Report.Replace("Application protocol: h2", "No protocol negotiated. Fallback behaviour may be activated", StringComparison.Ordinal);

        JsonElement parsed = await ParseAsync(report);

        Assert.Equal(1, parsed.GetProperty("socket_errors").GetProperty("connect").GetInt32());
        Assert.Contains("did not negotiate h2", parsed.GetProperty("warnings")[0].GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task NoReportIsNoResponse()
    {
        JsonElement parsed = await ParseAsync("connect to 127.0.0.1:1: Connection refused\n");

        Assert.Equal(JsonValueKind.Null, parsed.GetProperty("requests").ValueKind);
    }

    private static async Task<JsonElement> ParseAsync(string output)
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "parse-h2load"], TimeSpan.FromMinutes(1), output);
        Assert.True(result.ExitCode == 0, result.ToString());
        return JsonDocument.Parse(result.Output).RootElement;
    }
}
