using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using System.Xml.Linq;
using PlatformBenchmarks.Tests.Endpoints.HttpArena;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>
/// scenarios/run.sh end to end, against a server process (the single-target run, which checks the CPU counted) and the
/// in-process server (the comparison), with two-second windows: when the test process is busy
/// with the other tests, its accept queue can overflow, and a dropped connection attempt is retried by the kernel after
/// one second, which can leave a one-second window without a single response: the method, the files it
/// writes and its failure on a non-2xx response; and HttpArena's profiles, through a proxy that records what wrk sends,
/// over stand-in data written here. It needs wrk, which run.sh installs (as root) when it is missing.
/// </summary>
[Collection(SharedServer.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public sealed class LoadRunnerTests(ServerFixture server) : IDisposable
{
    // The files HttpArena's static profile asks for, in its order (requests/static-rotate.lua).
    private static readonly string[] s_staticFiles =
        ["reset.css", "layout.css", "theme.css", "components.css", "utilities.css", "analytics.js", "helpers.js", "app.js",
         "vendor.js", "router.js", "header.html", "footer.html", "regular.woff2", "bold.woff2", "logo.svg", "icon-sprite.svg",
         "hero.webp", "thumb1.webp", "thumb2.webp", "manifest.json"];

    private readonly string _out = Directory.CreateTempSubdirectory("loadrun-test-").FullName;
    private readonly string _data = Directory.CreateTempSubdirectory("loadrun-arena-data-").FullName;

    public void Dispose()
    {
        Directory.Delete(_out, recursive: true);
        Directory.Delete(_data, recursive: true);
    }

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
        Assert.Contains("| Level | first req/s | first CPU µs | second req/s | second CPU µs | second / first req/s | second / first CPU | second / first CPU, median of rounds |", markdown, StringComparison.Ordinal);
        string row = markdown.Split('\n').Single(line => line.StartsWith("| 16 |", StringComparison.Ordinal));
        // The ratio is the means' quotient over the rounds; not a range around 1: one second of load on a busy two-core
        // machine can measure the same server five times apart. Every run here is clean, so the report averages them all.
        Assert.All(levels, run => Assert.Equal(0, run.GetProperty("non_2xx").GetInt32()));
        Assert.All(levels, run => Assert.All(run.GetProperty("socket_errors").EnumerateObject(), error => Assert.Equal(0, error.Value.GetInt32())));
        double MeanRps(string target) => levels.Where(r => r.GetProperty("target").GetString() == target).Average(r => r.GetProperty("rps").GetDouble());
        string expected = (MeanRps("second") / MeanRps("first")).ToString("F2", CultureInfo.InvariantCulture);
        Assert.Equal(expected, row.Split('|', StringSplitOptions.TrimEntries)[6]);
        // The last column pairs the rounds: each round's CPU quotient, and their median (of two, their mean).
        double Cpu(int round, string target) => levels.Single(r => r.GetProperty("round").GetInt32() == round && r.GetProperty("target").GetString() == target)
            .GetProperty("server_cpu_us_per_response").GetDouble();
        double[] quotients = [Cpu(1, "second") / Cpu(1, "first"), Cpu(2, "second") / Cpu(2, "first")];
        Assert.Equal(quotients.Average().ToString("F2", CultureInfo.InvariantCulture), row.Split('|', StringSplitOptions.TrimEntries)[8]);

        // User and system time are kept apart too, and add up to the CPU per response; the report gives their means
        // and the user means' quotient.
        double Part(JsonElement run, string part) => run.GetProperty($"server_{part}_us_per_response").GetDouble();
        Assert.All(levels, run => Assert.Equal(run.GetProperty("server_cpu_us_per_response").GetDouble(), Part(run, "user") + Part(run, "system"), 6));
        Assert.Contains("| Test | Level | first user µs | first system µs | second user µs | second system µs | second / first user |", markdown, StringComparison.Ordinal);
        string[] split = markdown.Split('\n').Single(line => line.StartsWith("| json | 16 |", StringComparison.Ordinal)).Split('|', StringSplitOptions.TrimEntries);
        double MeanUser(string target) => levels.Where(r => r.GetProperty("target").GetString() == target).Average(r => Part(r, "user"));
        Assert.Equal(MeanUser("first").ToString("F2", CultureInfo.InvariantCulture), split[3]);
        Assert.Equal(MeanUser("first") == 0 ? "–" : (MeanUser("second") / MeanUser("first")).ToString("F2", CultureInfo.InvariantCulture), split[7]);
        Assert.Equal(["bar first json 16", "bar second json 16"], ChartBars());
    }

    [Fact]
    public async Task RestartRoundsStartsTheServersItStartedAgainEachRoundInARotatedOrderAndCountsTheNewProcesses()
    {
        // Two servers started by the runner (commands that hold a process and say they started, in front of the shared
        // server), restarted before the second round, then started in the reverse order.
        string url = server.BaseAddress.ToString().TrimEnd('/');
        ProcessResult result = await ChildProcess.RunAsync("bash",
            ["scenarios/run.sh", "--url", $"a={url}", "--start", "echo a started; exec sleep 600", "--url", $"b={url}",
             "--start", "echo b started; exec sleep 600", "--rounds", "2", "--restart-rounds", "--tests", "json",
             "--levels", "concurrency=16", "--out", _out, "--duration", "1", "--warmup", "1", "--primer", "1", "--no-pauses"],
            TimeSpan.FromMinutes(5));

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("restarting b, a, in that order", result.Error, StringComparison.Ordinal);
        using var document = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "results.json")));
        JsonElement[] starts = [.. document.RootElement.GetProperty("starts").EnumerateArray()];
        Assert.Equal(["1 a b", "2 b a"],
            starts.Select(s => $"{s.GetProperty("round").GetInt32()} {string.Join(' ', s.GetProperty("order").EnumerateArray().Select(n => n.GetString()))}"));
        int Pid(int round, string name) => starts[round - 1].GetProperty("pids").GetProperty(name).GetInt32();
        foreach (string name in new[] { "a", "b" })
        {
            Assert.NotEqual(Pid(1, name), Pid(2, name));
            // The pid whose CPU is counted from the second round on is the new process's.
            Assert.Equal(Pid(2, name), document.RootElement.GetProperty("targets").EnumerateArray()
                .Single(t => t.GetProperty("name").GetString() == name).GetProperty("pid").GetInt32());
            Assert.False(Directory.Exists($"/proc/{Pid(1, name)}"), "a restart left the earlier process running");
            Assert.False(Directory.Exists($"/proc/{Pid(2, name)}"), "the runner left the server it started running");
            // Each command ran twice, and its log kept the first round's output.
            Assert.Equal($"{name} started\n{name} started\n", await File.ReadAllTextAsync(Path.Combine(_out, $"server-{name}.log")));
        }

        string markdown = await File.ReadAllTextAsync(Path.Combine(_out, "results.md"));
        Assert.Contains("stopped and started again before every round", markdown, StringComparison.Ordinal);
        Assert.Contains($"  - round 2: b (pid {Pid(2, "b")}), a (pid {Pid(2, "a")})", markdown, StringComparison.Ordinal);
    }

    private string[] ChartBars() =>
        [.. XDocument.Load(Path.Combine(_out, "chart.svg")).Descendants(XName.Get("g", "http://www.w3.org/2000/svg"))
            .Select(g => (string?)g.Attribute("id")).OfType<string>().Where(id => id.StartsWith("bar ", StringComparison.Ordinal))];

    [Fact]
    public async Task QueryConnectionsSetsTheConnectionsOfTheRowsPerRequestLevelsAndTheReportNamesThem()
    {
        ProcessResult result = await RunAsync(server.BaseAddress.ToString(), "cached,json", "--levels", "cached=2;concurrency=6", "--query-connections", "4");

        Assert.True(result.ExitCode == 0, result.ToString());
        using var document = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "results.json")));
        JsonElement[] levels = [.. document.RootElement.GetProperty("runs").EnumerateArray().Where(r => r.GetProperty("phase").GetString() == "level")];
        Assert.Equal(["cached 2 4", "json 6 6"],
            levels.Select(r => $"{r.GetProperty("test").GetString()} {r.GetProperty("level").GetInt32()} {r.GetProperty("connections").GetInt32()}"));
        string report = await File.ReadAllTextAsync(Path.Combine(_out, "results.md"));
        Assert.Contains("Level: cached rows per request (4 connections).", report, StringComparison.Ordinal);

        ProcessResult refused = await RunAsync(server.BaseAddress.ToString(), "cached", "--query-connections", "0");
        Assert.True(refused.ExitCode == 2, refused.ToString());
        Assert.Contains("--query-connections must be at least 1", refused.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARunFailsLoudlyWhenTheServerAnswersWithAnError()
    {
        // A base URL under a path the server does not serve: every request answers 404.
        ProcessResult result = await RunAsync(server.BaseAddress + "no-such-prefix", "json");

        Assert.True(result.ExitCode == 1, result.ToString());
        Assert.Contains("FAILED", result.Error, StringComparison.Ordinal);
        Assert.Contains("answered 404", result.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task HttpArenasProfilesPutTheVenuesRequestsOnTheWireAndEachIsMeasured()
    {
        // This server over stand-in data, behind a proxy that records every request wrk sends through it. The server is a
        // process of its own: the CPU the runner counts is a process tree's, and this test process's tree changes with the
        // tests that run beside it (a build's servers outlive it), which could take time out of the count.
        string data = WriteArenaData(Path.Join(_data, "data"));
        int port = ServerProcess.FreePort();
        using Process arena = ServerProcess.Start(
            ["--urls", $"http://127.0.0.1:{port}", "--HttpArena:DatasetPath", Path.Join(data, "dataset.json"), "--HttpArena:StaticPath", Path.Join(data, "static")],
            connectionString: Data.TestDatabase.ConnectionString);
        try
        {
            await ServerProcess.WaitForBannerAsync(arena, TimeSpan.FromMinutes(1));
            await using var proxy = new RecordingProxy(port);
            ProcessResult result = await RunAsync($"arena=http://127.0.0.1:{proxy.Port}", "arena",
                // A primer of 2 s, not 1: a window with no response fails the run, and a busy machine can hold the first
                // async-db answers (a new database connection) past one second.
                "--pid", arena.Id.ToString(CultureInfo.InvariantCulture), "--warmup", "1", "--primer", "2",
                "--levels", "baseline=4;limited-conn=4;pipelined=4;json-arena=4;json-comp=4;upload=2;static=4;async-db=4");

            Assert.True(result.ExitCode == 0, result.ToString());
            Assert.Empty(proxy.Problems);
            AssertMeasured(["baseline", "limited-conn", "pipelined", "json-arena", "json-comp", "upload", "static", "async-db"], [4, 4, 4, 4, 4, 2, 4, 4]);
            AssertTheVenuesRequests(proxy.Requests);
        }
        finally
        {
            arena.Kill(entireProcessTree: true);
            await arena.WaitForExitAsync();
        }
    }

    /// <summary>Each test ran TFB's sequence with its level, every response counted and checked, and shows in the report.</summary>
    private void AssertMeasured(string[] tests, int[] connections)
    {
        using var document = JsonDocument.Parse(File.ReadAllText(Path.Combine(_out, "results.json")));
        JsonElement[] runs = [.. document.RootElement.GetProperty("runs").EnumerateArray()];
        Assert.Equal(tests.SelectMany(test => new[] { $"{test} primer", $"{test} warmup", $"{test} level" }),
            runs.Select(r => $"{r.GetProperty("test").GetString()} {r.GetProperty("phase").GetString()}"));
        JsonElement[] levels = [.. runs.Where(r => r.GetProperty("phase").GetString() == "level")];
        Assert.Equal(connections, levels.Select(r => r.GetProperty("connections").GetInt32()));
        Assert.All(levels, run =>
        {
            Assert.True(run.GetProperty("rps").GetDouble() > 0);
            Assert.Equal(0, run.GetProperty("non_2xx").GetInt32());
            Assert.Equal(0, run.GetProperty("unexpected").GetInt32());
            Assert.True(run.GetProperty("server_cpu_us_per_response").GetDouble() > 0, "the --pid's CPU time was not counted");
            Assert.Equal(run.GetProperty("test").GetString() == "pipelined" ? 16 : 1, run.GetProperty("pipeline").GetInt32());
        });
        Assert.Empty(document.RootElement.GetProperty("failures").EnumerateArray());

        string markdown = File.ReadAllText(Path.Combine(_out, "results.md"));
        Assert.All(tests, test => Assert.Contains($"## {test}: every measurement", markdown, StringComparison.Ordinal));
        string target = document.RootElement.GetProperty("targets")[0].GetProperty("name").GetString()!;
        Assert.Equal(tests.Zip(connections, (test, level) => $"bar {target} {test} {level}"), ChartBars());
    }

    /// <summary>The distinct targets of <paramref name="requests"/> are <paramref name="expected"/>, in any order.</summary>
    private static void AssertTargets(string[] expected, IEnumerable<WireRequest> requests) =>
        Assert.Equal(expected.Order(StringComparer.Ordinal), requests.Select(r => r.Target).Distinct().Order(StringComparer.Ordinal));

    /// <summary>What HttpArena's profiles send (its docs, requests/ and load scripts), as the proxy saw it on the wire.</summary>
    private static void AssertTheVenuesRequests(IReadOnlyDictionary<WireRequest, long> wire)
    {
        // The runner's first request of each test (Python's, which says so in its User-Agent; wrk sends none): the first
        // of the test's mix, the upload with its body.
        WireRequest[] first = [.. wire.Keys.Where(r => r.Field("User-Agent") is not null)];
        Assert.Equal(8, first.Sum(r => wire[r]));
        Assert.Equal(
            ["GET /async-db?min=10&max=50&limit=5", "GET /baseline11?a=13&b=42", "GET /json/1?m=3", "GET /json/25?m=4",
             "GET /pipeline", "GET /static/reset.css", "POST /upload"],
            first.Select(r => $"{r.Method} {r.Target}").Distinct().Order(StringComparer.Ordinal));
        Assert.Equal(512_000, first.Single(r => r.Target == "/upload").BodyLength);

        WireRequest[] Sent(Func<WireRequest, bool> which) => [.. wire.Keys.Where(r => r.Field("User-Agent") is null && which(r))];
        double RequestsPerClose(IEnumerable<WireRequest> requests) =>
            (double)requests.Sum(r => wire[r]) / Math.Max(1, requests.Where(r => r.Closes).Sum(r => wire[r]));

        // wrk's Host and the venue's own headers only, none of TFB's; no other route.
        Assert.All(Sent(_ => true), request =>
        {
            Assert.Null(request.Field("Accept"));
            Assert.Matches("^/(baseline11|pipeline|json/|upload|static/|async-db)", request.Target);
        });

        // baseline and limited-conn: a GET, a POST with Content-Length and a chunked POST, each body 20; limited-conn asks
        // the server to close after every 10th request, baseline never.
        WireRequest[] baseline = Sent(r => r.Target == "/baseline11?a=13&b=42");
        Assert.Equal(["GET length ", "POST chunked 20", "POST length 20"],
            baseline.Select(r => $"{r.Method} {(r.Chunked ? "chunked" : "length")} {r.BodyStart}").Distinct().Order(StringComparer.Ordinal));
        Assert.All(baseline.Where(r => r.Method == "POST" && !r.Chunked), r => Assert.Equal("2", r.Field("Content-Length")));
        Assert.Contains(baseline, r => r.Closes);
        Assert.True(RequestsPerClose(baseline) >= 8, "more closes than limited-conn's one in 10 requests");

        Assert.NotEmpty(Sent(r => r.Target == "/pipeline"));

        // json: its seven count and multiplier pairs, a new connection per 25 requests; json-comp: three of them, with its
        // Accept-Encoding.
        WireRequest[] json = Sent(r => r.Target.StartsWith("/json/", StringComparison.Ordinal) && r.Field("Accept-Encoding") is null);
        AssertTargets(["/json/1?m=3", "/json/5?m=7", "/json/10?m=2", "/json/15?m=5", "/json/25?m=4", "/json/40?m=8", "/json/50?m=6"], json);
        Assert.InRange(RequestsPerClose(json), 20, 32);
        WireRequest[] compressed = Sent(r => r.Target.StartsWith("/json/", StringComparison.Ordinal) && r.Field("Accept-Encoding") is not null);
        AssertTargets(["/json/25?m=4", "/json/40?m=8", "/json/50?m=6"], compressed);
        Assert.All(compressed, r => Assert.Equal("gzip, br", r.Field("Accept-Encoding")));
        Assert.InRange(RequestsPerClose(compressed), 20, 32);

        // upload: 500 KiB, 2, 10 and 20 MiB bodies with their Content-Length, a new connection per 5.
        WireRequest[] uploads = Sent(r => r.Target == "/upload");
        Assert.Equal([512_000L, 2_097_152, 10_485_760, 20_971_520], uploads.Select(r => r.BodyLength).Distinct().Order());
        Assert.All(uploads, r => Assert.Equal(r.BodyLength.ToString(CultureInfo.InvariantCulture), r.Field("Content-Length")));
        // Bodies of up to 20 MiB leave only a few dozen uploads in the short phases, and each wrk thread's requests after
        // its last close in a phase (up to four) carry none: so the closes are checked to be there, at most one in four
        // uploads (one in five is asked), and not for an upper bound, which those tails move past any fixed figure.
        Assert.Contains(uploads, r => r.Closes);
        Assert.True(RequestsPerClose(uploads) >= 4, "more closes than one in four uploads");

        // static: the venue's 20 files, each asked with its Accept-Encoding, on connections kept open.
        WireRequest[] files = Sent(r => r.Target.StartsWith("/static/", StringComparison.Ordinal));
        AssertTargets([.. s_staticFiles.Select(name => "/static/" + name)], files);
        Assert.All(files, r => Assert.Equal("br;q=1, gzip;q=0.8", r.Field("Accept-Encoding")));
        Assert.DoesNotContain(files, r => r.Closes);

        // async-db: its five limits, a new connection per 25 requests.
        WireRequest[] database = Sent(r => r.Target.StartsWith("/async-db", StringComparison.Ordinal));
        AssertTargets(
            ["/async-db?min=10&max=50&limit=5", "/async-db?min=10&max=50&limit=10", "/async-db?min=10&max=50&limit=20",
             "/async-db?min=10&max=50&limit=35", "/async-db?min=10&max=50&limit=50"],
            database);
        Assert.InRange(RequestsPerClose(database), 20, 32);
    }

    [Fact]
    public async Task JsonTlsSendsTheVenuesJsonMixOnKeptConnectionsOverTheSchemeOfEachTargetsUrl()
    {
        // One server process with a plaintext and a TLS listener, measured as two targets: over https://, as the venue
        // sends json-tls, and over http:// through the recording proxy, which shows the same mix on the wire.
        string data = WriteArenaData(Path.Join(_data, "data"));
        using var certificate = TestCertificate.Create();
        int plainPort = ServerProcess.FreePort();
        int tlsPort = ServerProcess.FreePort();
        using Process server = ServerProcess.Start(
            ["--urls", $"http://127.0.0.1:{plainPort};https://127.0.0.1:{tlsPort}", "--HttpArena:DatasetPath", Path.Join(data, "dataset.json"),
             .. certificate.Settings]);
        try
        {
            await ServerProcess.WaitForBannerAsync(server, TimeSpan.FromMinutes(1));
            await using var proxy = new RecordingProxy(plainPort);
            string pid = server.Id.ToString(CultureInfo.InvariantCulture);
            ProcessResult result = await RunAsync($"tls=https://127.0.0.1:{tlsPort}", "json-tls", "--pid", pid,
                "--url", $"plain=http://127.0.0.1:{proxy.Port}", "--pid", pid, "--warmup", "1", "--levels", "json-tls=4");

            Assert.True(result.ExitCode == 0, result.ToString());
            using var document = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "results.json")));
            JsonElement[] levels = [.. document.RootElement.GetProperty("runs").EnumerateArray().Where(r => r.GetProperty("phase").GetString() == "level")];
            Assert.Equal([$"tls https://127.0.0.1:{tlsPort}/json/1?m=3 4", $"plain http://127.0.0.1:{proxy.Port}/json/1?m=3 4"],
                levels.Select(r => $"{r.GetProperty("target").GetString()} {r.GetProperty("url").GetString()} {r.GetProperty("connections").GetInt32()}"));
            Assert.All(levels, run =>
            {
                Assert.True(run.GetProperty("rps").GetDouble() > 0);
                Assert.Equal(0, run.GetProperty("non_2xx").GetInt32());
                Assert.All(run.GetProperty("socket_errors").EnumerateObject(), error => Assert.Equal(0, error.Value.GetInt32()));
            });
            Assert.Empty(document.RootElement.GetProperty("failures").EnumerateArray());

            // requests/json-tls-rotate.lua: json's seven pairs, no Accept-Encoding, and no reconnection.
            Assert.Empty(proxy.Problems);
            WireRequest[] sent = [.. proxy.Requests.Keys.Where(r => r.Field("User-Agent") is null)];
            AssertTargets(["/json/1?m=3", "/json/5?m=7", "/json/10?m=2", "/json/15?m=5", "/json/25?m=4", "/json/40?m=8", "/json/50?m=6"], sent);
            Assert.All(sent, r => Assert.Null(r.Field("Accept-Encoding")));
            Assert.DoesNotContain(sent, r => r.Closes);
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }

    [Fact]
    public async Task ThisServerGetsHttpArenasDataFromArenaDataWhichMayNameACheckoutOfTheVenue()
    {
        string checkout = Path.Join(_data, "checkout");
        string data = WriteArenaData(Path.Join(checkout, "data"));

        ProcessResult result = await ChildProcess.RunAsync("bash",
            ["scenarios/run.sh", "--no-build", "--arena-data", checkout, "--tests", "json-arena,static", "--levels", "json-arena=2;static=2",
             "--out", _out, "--duration", "2", "--warmup", "1", "--primer", "1", "--no-pauses"],
            TimeSpan.FromMinutes(5));

        Assert.True(result.ExitCode == 0, result.ToString());
        AssertMeasured(["json-arena", "static"], [2, 2]);
        using var document = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "results.json")));
        string[] banner = [.. document.RootElement.GetProperty("targets").EnumerateArray().Single().GetProperty("banner").EnumerateArray().Select(l => l.GetString()!)];
        Assert.Contains(banner, line => line.Contains($"Dataset:    3 items from {Path.Join(data, "dataset.json")}", StringComparison.Ordinal));
        Assert.Contains(banner, line => line.Contains("Static:", StringComparison.Ordinal) && line.TrimEnd().EndsWith(Path.Join(data, "static"), StringComparison.Ordinal));
    }

    [Fact]
    public async Task AnHttpArenaTestWithoutItsDataFailsAtItsFirstRequestAndSaysWhatToGive()
    {
        var arena = new ArenaServer(Path.Join(_data, "nothing-here"));
        await arena.InitializeAsync();
        try
        {
            ProcessResult result = await RunAsync(arena.BaseAddress.ToString().TrimEnd('/'), "json-arena,static");

            Assert.True(result.ExitCode == 1, result.ToString());
            Assert.Contains("json-arena: GET " + arena.BaseAddress + "json/1?m=3 answered 503", result.Error, StringComparison.Ordinal);
            Assert.Contains("static: GET " + arena.BaseAddress + "static/reset.css answered 404", result.Error, StringComparison.Ordinal);
            Assert.Contains("give --arena-data DIR", result.Error, StringComparison.Ordinal);
        }
        finally
        {
            await arena.DisposeAsync();
        }
    }

    [Fact]
    public async Task WithGcannonEachTemplateIsAnsweredAndCheckedBeforeAnyLoadAndAFailureSaysWhatToGive()
    {
        // gcannon never runs here (false would fail the run if it did): the runner first sends each template it wrote, alone,
        // as gcannon would, and checks the answer; a server without the dataset answers json's 503, a base URL with a
        // path names no server for the templates, whose paths are their own.
        var arena = new ArenaServer(Path.Join(_data, "nothing-here"));
        await arena.InitializeAsync();
        try
        {
            string url = arena.BaseAddress.ToString().TrimEnd('/');
            ProcessResult result = await RunAsync($"ours={url}", "json-arena,baseline", "--gcannon", "/bin/false",
                "--url", $"prefixed={url}/prefix", "--levels", "json-arena=4;baseline=4");

            Assert.True(result.ExitCode == 1, result.ToString());
            Assert.Contains("ours json-arena: templates/json-arena-1.raw answered 503", result.Error, StringComparison.Ordinal);
            Assert.Contains("give --arena-data DIR", result.Error, StringComparison.Ordinal);
            Assert.Contains($"prefixed baseline: gcannon sends to an http://host:port base URL, and its templates name their own paths; {url}/prefix is not one", result.Error, StringComparison.Ordinal);
            using var document = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "results.json")));
            // Only ours's baseline got past its checks, to a gcannon that fails: each of its runs is a failure.
            Assert.All(document.RootElement.GetProperty("runs").EnumerateArray(), run =>
            {
                Assert.Equal("ours baseline gcannon", $"{run.GetProperty("target").GetString()} {run.GetProperty("test").GetString()} {run.GetProperty("tool").GetString()}");
                Assert.Equal(JsonValueKind.Null, run.GetProperty("requests").ValueKind);
            });
            Assert.Contains("ours baseline: primer: gcannon exited with 1; no response was counted (gcannon's report could not be read)", result.Error, StringComparison.Ordinal);
            Assert.Equal("GET /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost:8080\r\n\r\n",
                await File.ReadAllTextAsync(Path.Combine(_out, "templates", "baseline-1.raw")));
        }
        finally
        {
            await arena.DisposeAsync();
        }
    }

    [Theory]
    [InlineData("expect=3,4", false)]
    [InlineData("match=^3$", false)]
    [InlineData("expect=4", true)]
    [InlineData("encoding=gzip,br", true)]
    public async Task ArenaLuaCountsEveryResponseThatFailsItsCheckAndTheRunnerReadsIt(string check, bool fails)
    {
        ProcessResult wrk = await ChildProcess.RunAsync("wrk",
            ["-t", "1", "-c", "2", "-d", "1", server.BaseAddress.ToString(), "-s", "scenarios/arena.lua", "--", "get=/baseline11?a=1&b=2", check],
            TimeSpan.FromMinutes(1));
        ProcessResult parsed = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "parse-wrk"], TimeSpan.FromMinutes(1), wrk.Output);

        Assert.True(wrk.ExitCode == 0, wrk.ToString());
        JsonElement report = JsonDocument.Parse(parsed.Output).RootElement;
        long requests = report.GetProperty("requests").GetInt64();
        Assert.True(requests > 0, wrk.ToString());
        if (fails)
        {
            Assert.Equal(requests, report.GetProperty("unexpected").GetInt64());
            Assert.Equal("200 3", report.GetProperty("unexpected_first").GetString());
        }
        else
        {
            Assert.Equal(0, report.GetProperty("unexpected").GetInt64());
        }
    }

    /// <summary>Stand-ins for HttpArena's data in <paramref name="folder"/>: a few items of its dataset, its static files' names.</summary>
    private static string WriteArenaData(string folder)
    {
        Directory.CreateDirectory(Path.Join(folder, "static"));
        File.WriteAllText(Path.Join(folder, "dataset.json"), TestDataset.Json);
        foreach (string name in s_staticFiles)
        {
            File.WriteAllText(Path.Join(folder, "static", name), $"/* {name} */\n" + new string('x', 2000));
        }

        return folder;
    }

    /// <summary>This server, in the test process, with its HttpArena data in <paramref name="folder"/> and the test database.</summary>
    private sealed class ArenaServer(string folder) : ServerFixture
    {
        protected override IReadOnlyList<string> Settings =>
            ["--HttpArena:DatasetPath", Path.Join(folder, "dataset.json"), "--HttpArena:StaticPath", Path.Join(folder, "static")];
    }
}
