using System.Reflection;
using System.Text.Json;
using System.Text.RegularExpressions;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Docker;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Scenarios;

public partial class CrankConfigTests
{
    private static readonly string[] s_jobs = ["db", "application", "load"];

    private const string CrankWrkJob = "https://raw.githubusercontent.com/dotnet/crank/main/src/Microsoft.Crank.Jobs.Wrk/wrk.yml";

    public static TheoryData<string> Files => new(CrankFiles.Paths().Select(Path.GetFileName)!);

    private static Dictionary<string, object?> Load(string file) => CrankFiles.Load(Repository.PathOf("scenarios", file));

    private static Dictionary<string, object?> Map(Dictionary<string, object?> node, string key) => CrankFiles.Mapping(node, key);

    [Fact]
    public void TheScenariosFolderHasACrankFile() => Assert.NotEmpty(CrankFiles.Paths());

    [Theory]
    [MemberData(nameof(Files))]
    public void TheServerJobBuildsThisRepositorysServerAndWaitsForTheHostsStartLine(string file)
    {
        Dictionary<string, object?> job = Map(Map(Load(file), "jobs"), "platformbenchmarks");
        Dictionary<string, object?> source = Map(job, "source");

        // localFolder is relative to the configuration file.
        string folder = Path.GetFullPath(Path.Combine(Repository.PathOf("scenarios"), (string)source["localFolder"]!));
        Assert.Equal(Repository.Root.TrimEnd('/'), folder.TrimEnd('/'));
        Assert.Equal("src/PlatformBenchmarks/PlatformBenchmarks.csproj", source["project"]);
        Assert.True(File.Exists(Path.Combine(folder, (string)source["project"]!)));
        // The host's lifetime log line (docker/verify-publish.sh and scenarios/run.sh wait for it as well).
        Assert.Equal("Application started.", job["readyStateText"]);
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void TheServerJobPassesOnlyConfigurationTheServerReads(string file)
    {
        Dictionary<string, object?> job = Map(Map(Load(file), "jobs"), "platformbenchmarks");
        string arguments = (string)job["arguments"]!;
        var known = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "urls" };
        known.UnionWith(typeof(TransportSettings).GetProperties(BindingFlags.Public | BindingFlags.Instance).Select(p => "Transport:" + p.Name));
        known.UnionWith(typeof(Transport.TransportOptions).GetProperties(BindingFlags.Public | BindingFlags.Instance).Select(p => "Transport:" + p.Name));
        known.UnionWith(typeof(HttpLimits).GetProperties(BindingFlags.Public | BindingFlags.Instance).Select(p => "Http:" + p.Name));

        Assert.Contains("--urls {{serverScheme}}://{{serverAddress}}:{{serverPort}}", arguments, StringComparison.Ordinal);
        Assert.All(ConfigurationSwitch().Matches(arguments), m => Assert.True(known.Contains(m.Groups["key"].Value), $"the server reads no '{m.Groups["key"].Value}'"));

        Dictionary<string, object?> environment = Map(job, "environmentVariables");
        Assert.All(environment.Keys, key => Assert.True(key == "ConnectionString" || key.StartsWith("DOTNET_", StringComparison.Ordinal), $"unexpected variable {key}"));
        string connection = (string)environment["ConnectionString"]!;
        Assert.Contains("Host={{databaseServer}};Port={{databasePort}};Database=hello_world;Username=benchmarkdbuser;Password=benchmarkdbpass", connection, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void EveryTemplateVariableOfTheServerJobIsDefinedInEveryProfile(string file)
    {
        Dictionary<string, object?> config = Load(file);
        Dictionary<string, object?> job = Map(Map(config, "jobs"), "platformbenchmarks");
        string templated = (string)job["arguments"]! + string.Join(';', Map(job, "environmentVariables").Values);
        var used = TemplateVariable().Matches(templated).Select(m => m.Groups["name"].Value).ToHashSet(StringComparer.Ordinal);

        foreach ((string profileName, object? node) in Map(config, "profiles"))
        {
            var profile = (Dictionary<string, object?>)node!;
            var defined = Map(job, "variables").Keys.ToHashSet(StringComparer.Ordinal);
            defined.UnionWith(Map(profile, "variables").Keys);
            defined.UnionWith(Map(Map(Map(profile, "jobs"), "application"), "variables").Keys);
            Assert.All(used, name => Assert.True(defined.Contains(name), $"profile {profileName} leaves {{{{{name}}}}} undefined"));
        }
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void EveryTfbTestHasAScenarioLoadingItsUrlTheWayTfbDoes(string file)
    {
        Dictionary<string, object?> config = Load(file);
        using JsonDocument tfb = TfbSubmission.LoadConfig();
        JsonElement urls = TfbSubmission.Tests(tfb).Single(t => t.Name == "default").Test;
        Dictionary<string, object?> jobs = Map(config, "jobs");
        string serverPort = (string)Map(Map(jobs, "platformbenchmarks"), "variables")["serverPort"]!;

        Assert.Contains(CrankWrkJob, Assert.IsType<List<object?>>(config["imports"]));
        Assert.Equal(CrankFiles.TfbTypes.Keys.Order(StringComparer.Ordinal), Map(config, "scenarios").Keys.Order(StringComparer.Ordinal));
        foreach ((string name, object? node) in Map(config, "scenarios"))
        {
            var scenario = (Dictionary<string, object?>)node!;
            TfbUrl url = TfbSubmission.Urls.Single(u => u.Type == CrankFiles.TfbTypeOf(name));
            Dictionary<string, object?> load = Map(scenario, "load");
            Dictionary<string, object?> variables = Map(load, "variables");
            string path = (string)variables["path"]!;
            string configured = urls.GetProperty(url.Key).GetString()!;

            Assert.Equal("platformbenchmarks", Map(scenario, "application")["job"]);
            Assert.Equal("wrk", load["job"]);
            Assert.True(url.IsPrefix ? CountSuffix().IsMatch(path[configured.Length..]) && path.StartsWith(configured, StringComparison.Ordinal) : path == configured,
                $"scenario {name} loads {path}, benchmark_config.json says {configured}");
            Assert.Equal(name == "plaintext" ? "plaintext" : "json", variables["presetHeaders"]);
            Assert.Equal(["Host: tfb-server"], Assert.IsType<List<object?>>(variables["customHeaders"]));
            Assert.Equal(serverPort, variables["serverPort"]);
            Assert.Equal(name == "plaintext" ? "16" : null, variables.GetValueOrDefault("pipeline"));
            bool usesDatabase = name is not ("plaintext" or "json");
            Assert.Equal(usesDatabase, scenario.ContainsKey("db"));
            if (usesDatabase)
            {
                Assert.True(jobs.ContainsKey((string)Map(scenario, "db")["job"]!), $"scenario {name} uses an undefined database job");
            }
        }
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void TheDatabaseJobsBuildTfbsImageOrThisRepositorysOne(string file)
    {
        Dictionary<string, object?> jobs = Map(Load(file), "jobs");

        Dictionary<string, object?> tfb = Map(Map(jobs, "postgresql"), "source");
        Assert.Equal("https://github.com/TechEmpower/FrameworkBenchmarks.git", tfb["repository"]);
        Assert.Equal("toolset/databases/postgres/postgres.dockerfile", tfb["dockerFile"]);

        Dictionary<string, object?> local = Map(Map(jobs, "postgresql-local"), "source");
        string folder = Path.GetFullPath(Path.Combine(Repository.PathOf("scenarios"), (string)local["localFolder"]!));
        string dockerfile = Path.Combine(folder, (string)local["dockerFile"]!);
        Assert.True(File.Exists(dockerfile), $"{local["dockerFile"]} is not in {folder}");

        // Docker builds with the job's context: every file the dockerfile copies must be inside it.
        string context = Path.GetFullPath(Path.Combine(folder, (string)local["dockerContextDirectory"]!));
        string[] copied = [.. File.ReadLines(dockerfile).Where(line => line.StartsWith("COPY ", StringComparison.Ordinal)).Select(line => line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1])];
        Assert.NotEmpty(copied);
        Assert.All(copied, source => Assert.True(File.Exists(Path.Combine(context, source)), $"the database image copies {source}, which is not in its context {context}"));
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void TheProfilesPutTheThreeJobsOnOneMachineOrOnThree(string file)
    {
        Dictionary<string, object?> config = Load(file);
        Dictionary<string, object?> profiles = Map(config, "profiles");
        Dictionary<string, object?> rootVariables = Map(config, "variables");

        string[] Endpoints(string profile) =>
            [.. s_jobs.Select(job => (string)Assert.Single(Assert.IsType<List<object?>>(Map(Map(Map(profiles, profile), "jobs"), job)["endpoints"]))!)];

        string[] local = Endpoints("local");
        Assert.Single(local.Distinct());
        string[] lab = Endpoints("lab");
        Assert.Equal(3, lab.Distinct().Count());
        Assert.All(local.Concat(lab), endpoint =>
        {
            Match template = TemplateVariable().Match(endpoint);
            Assert.True(template.Success && rootVariables.ContainsKey(template.Groups["name"].Value), $"endpoint {endpoint} names no root variable");
        });
    }

    [GeneratedRegex(@"--(?<key>[A-Za-z][\w:]*)")]
    private static partial Regex ConfigurationSwitch();

    [GeneratedRegex(@"\{\{\s*(?<name>\w+)\s*\}\}")]
    private static partial Regex TemplateVariable();

    [GeneratedRegex(@"^[0-9]+$")]
    private static partial Regex CountSuffix();
}
