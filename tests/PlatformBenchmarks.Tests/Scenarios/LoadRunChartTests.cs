using System.Globalization;
using System.Text.Json;
using System.Xml.Linq;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>
/// The load runner's chart (scenarios/loadrun/chart.py), drawn by <c>scenarios/run.sh report</c> from a results.json
/// written here: the values it draws, read back from the SVG's coordinates. It needs matplotlib, which run.sh installs
/// (as root) with wrk.
/// </summary>
[Trait(TestCategory.Name, TestCategory.System)]
public sealed class LoadRunChartTests : IDisposable
{
    private static readonly XNamespace s_svg = "http://www.w3.org/2000/svg";
    private static readonly XNamespace s_xlink = "http://www.w3.org/1999/xlink";
    private readonly string _out = Directory.CreateTempSubdirectory("loadrun-chart-test-").FullName;

    public void Dispose() => Directory.Delete(_out, recursive: true);

    [Fact]
    public async Task TheHeadlineIsServerCpuPerResponseWithEveryRoundAndItsSpreadAndRequestsPerSecondBesideIt()
    {
        double[] cpu = [6.0, 10.0, 8.0];
        double[] rps = [100_000, 130_000, 110_000];
        await File.WriteAllTextAsync(Path.Combine(_out, "results.json"), Results(cpu, rps));

        ProcessResult result = await ChildProcess.RunAsync("bash", ["scenarios/run.sh", "report", _out], TimeSpan.FromMinutes(2));

        Assert.True(result.ExitCode == 0, result.ToString());
        var chart = XDocument.Load(Path.Combine(_out, "chart.svg"));
        AssertDrawn(chart, "", cpu);
        AssertDrawn(chart, "rps ", rps);
    }

    /// <summary>The bar's height is the mean; the min-max line and the round points sit at the values, on the bar's scale.</summary>
    private static void AssertDrawn(XDocument chart, string prefix, double[] values)
    {
        double[] bar = Ys(Element(chart, $"{prefix}bar a json 16").Descendants(s_svg + "path").Single());
        double zero = bar.Max();
        double perUnit = (zero - bar.Min()) / values.Average();
        double At(double value) => zero - (value * perUnit);

        double[] spread = Ys(Element(chart, $"{prefix}spread a json 16").Descendants(s_svg + "path").Single());
        Assert.Equal(At(values.Min()), spread.Max(), 1);
        Assert.Equal(At(values.Max()), spread.Min(), 1);

        double[] rounds = [.. Element(chart, $"{prefix}rounds a json 16").Descendants(s_svg + "use")
            .Select(use => double.Parse((string)use.Attribute("y")!, CultureInfo.InvariantCulture)).Order()];
        Assert.Equal(values.Length, rounds.Length);
        Assert.All(values.OrderDescending().Zip(rounds), pair => Assert.Equal(At(pair.First), pair.Second, 1));
        Assert.All(Element(chart, $"{prefix}rounds a json 16").Descendants(s_svg + "use"), use => Assert.NotNull(use.Attribute(s_xlink + "href")));
    }

    private static XElement Element(XDocument chart, string id) =>
        chart.Descendants(s_svg + "g").SingleOrDefault(g => (string?)g.Attribute("id") == id) ?? throw new Xunit.Sdk.XunitException($"No '{id}' in the chart.");

    /// <summary>The y coordinates of a path's points ("M x y L x y ... z").</summary>
    private static double[] Ys(XElement path)
    {
        double[] numbers = [.. ((string)path.Attribute("d")!).Split(' ', StringSplitOptions.RemoveEmptyEntries)
            .Where(token => token.Length > 0 && (char.IsDigit(token[0]) || token[0] == '-'))
            .Select(token => double.Parse(token, CultureInfo.InvariantCulture))];
        return [.. numbers.Where((_, i) => i % 2 == 1)];
    }

    /// <summary>A run of one target, json at 16 connections, one measurement per round.</summary>
    private static string Results(double[] cpu, double[] rps) => JsonSerializer.Serialize(new
    {
        meta = LoadRunDocument.Meta(cpu.Length, "scenarios/run.sh --tests json --rounds 3", wrkThreadsMax: 2),
        targets = new[] { new { name = "a", base_url = "http://127.0.0.1:1", started_here = false, pid = 1, banner = Array.Empty<string>() } },
        runs = cpu.Select((value, i) => new
        {
            phase = "level",
            test = "json",
            level = 16,
            target = "a",
            round = i + 1,
            rps = rps[i],
            requests = (long)(rps[i] * 5),
            duration_s = 5,
            exit_code = 0,
            latency_ms = new { p50 = 0.5, p75 = 0.7, p90 = 0.9, p99 = 1.5 },
            socket_errors = new { connect = 0, read = 0, write = 0, timeout = 0 },
            non_2xx = 0,
            server_cpu_us_per_response = value,
            wrk_cpu_us_per_response = 3.0,
        }),
        failures = Array.Empty<string>(),
    });
}
