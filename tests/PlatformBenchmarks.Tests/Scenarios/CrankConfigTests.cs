using System.Reflection;
using System.Text.Json;
using System.Text.RegularExpressions;
using Npgsql;
using PlatformBenchmarks.Data;
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

    // That the agent's publish of the server job succeeds, and that the server it starts prints the job's ready text and
    // answers every scenario's path, is CrankAgentTests' (a system test): these check the files against the repository.
    [Theory]
    [MemberData(nameof(Files))]
    public void TheServerJobBuildsThisRepositorysServerProject(string file)
    {
        Dictionary<string, object?> source = Map(Map(Map(Load(file), "jobs"), "platformbenchmarks"), "source");

        // localFolder is relative to the configuration file; the agent uploads that folder and publishes the project in it.
        string folder = Path.GetFullPath(Path.Combine(Repository.PathOf("scenarios"), (string)source["localFolder"]!));
        Assert.Equal(Repository.Root.TrimEnd('/'), folder.TrimEnd('/'));
        string project = Path.Combine(folder, (string)source["project"]!);
        Assert.True(File.Exists(project), $"{project} does not exist");
        Assert.Equal(typeof(Program).Assembly.GetName().Name, Path.GetFileNameWithoutExtension(project));
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void TheServerJobPassesOnlyConfigurationTheServerReads(string file)
    {
        Dictionary<string, object?> job = Map(Map(Load(file), "jobs"), "platformbenchmarks");
        string arguments = (string)job["arguments"]!;
        var known = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "urls" };
        known.UnionWith(typeof(KestrelSocketSettings).GetProperties(BindingFlags.Public | BindingFlags.Instance).Select(p => "Sockets:" + p.Name));
        known.UnionWith(typeof(Transport.LinuxTransportOptions).GetProperties(BindingFlags.Public | BindingFlags.Instance).Select(p => "Transport:" + p.Name));
        known.UnionWith(typeof(HttpLimits).GetProperties(BindingFlags.Public | BindingFlags.Instance).Select(p => "Http:" + p.Name));

        // The listen address, as crank renders it, is one the server accepts (a host name would stop it at start-up).
        string urls = CrankFiles.Render(UrlsSwitch().Match(arguments).Groups["urls"].Value, Map(job, "variables").ToDictionary(v => v.Key, v => (string)v.Value!, StringComparer.Ordinal));
        Assert.Equal(urls, ServerSettings.CheckUrls(urls));
        Assert.All(ConfigurationSwitch().Matches(arguments), m => Assert.True(known.Contains(m.Groups["key"].Value), $"the server reads no '{m.Groups["key"].Value}'"));

        Dictionary<string, object?> environment = Map(job, "environmentVariables");
        Assert.All(environment.Keys, key => Assert.True(key == "ConnectionString" || key.StartsWith("DOTNET_", StringComparison.Ordinal), $"unexpected variable {key}"));
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void TheServerJobsConnectionStringReachesTheDatabaseImageWithTheSettingsTheServerHasUnderTfb(string file)
    {
        Dictionary<string, object?> jobs = Map(Load(file), "jobs");
        Dictionary<string, object?> job = Map(jobs, "platformbenchmarks");
        var variables = Map(job, "variables").ToDictionary(v => v.Key, v => (string)v.Value!, StringComparer.Ordinal);
        var connection = new NpgsqlConnectionStringBuilder(CrankFiles.Render((string)Map(job, "environmentVariables")["ConnectionString"]!, variables));
        string image = LocalDatabaseImage(jobs);

        // The database machine is a variable of the job; the port, database and credentials are the image's.
        Assert.Equal(variables["databaseServer"], connection.Host);
        Assert.Contains(connection.Port, Dockerfile.Exposed(image));
        Assert.Equal(Dockerfile.Env(image, "POSTGRES_DB"), connection.Database);
        Assert.Equal(Dockerfile.Env(image, "POSTGRES_USER"), connection.Username);
        Assert.True(Dockerfile.Env(image, "POSTGRES_PASSWORD") == connection.Password, "the password differs from the database image's");

        // Where the database is aside, the server ends up with the Npgsql settings it has in TFB's containers.
        NpgsqlConnectionStringBuilder crank = new DatabaseOptions { ConnectionString = connection.ConnectionString }.CreateConnectionStringBuilder();
        NpgsqlConnectionStringBuilder tfb = new DatabaseOptions().CreateConnectionStringBuilder();
        foreach (NpgsqlConnectionStringBuilder settings in new[] { crank, tfb })
        {
            settings.Remove("Host");
            settings.Remove("Port");
        }

        Assert.True(tfb.EquivalentTo(crank), $"crank: {crank.ConnectionString}; TFB: {tfb.ConnectionString}");
    }

    [Theory]
    [MemberData(nameof(Files))]
    public void EveryTemplateVariableOfTheServerJobIsDefinedInEveryProfile(string file)
    {
        Dictionary<string, object?> config = Load(file);
        Dictionary<string, object?> job = Map(Map(config, "jobs"), "platformbenchmarks");
        string templated = (string)job["arguments"]! + string.Join(';', Map(job, "environmentVariables").Values);
        var used = CrankFiles.TemplateVariable().Matches(templated).Select(m => m.Groups["name"].Value).ToHashSet(StringComparer.Ordinal);

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

            // The application is the job the tests above check: the one that builds and runs this server.
            Assert.Same(Map(jobs, "platformbenchmarks"), Map(jobs, (string)Map(scenario, "application")["job"]!));
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
    public void TheLocalDatabaseJobBuildsThisRepositorysImageWithEverythingItCopiesInItsContext(string file)
    {
        Dictionary<string, object?> jobs = Map(Load(file), "jobs");
        string dockerfile = LocalDatabaseImage(jobs);
        Assert.True(File.Exists(dockerfile), $"{dockerfile} does not exist");

        // Docker builds with the job's context: every file the dockerfile copies must be inside it.
        Dictionary<string, object?> local = Map(Map(jobs, "postgresql-local"), "source");
        string context = Path.GetFullPath(Path.Combine(Repository.PathOf("scenarios"), (string)local["localFolder"]!, (string)local["dockerContextDirectory"]!));
        string[] copied = [.. Dockerfile.ContextSources(dockerfile)];
        Assert.NotEmpty(copied);
        Assert.All(copied, source => Assert.True(File.Exists(Path.Combine(context, source)), $"the database image copies {source}, which is not in its context {context}"));
    }

    /// <summary>The dockerfile the postgresql-local job builds (its paths are relative to the configuration file's folder).</summary>
    private static string LocalDatabaseImage(Dictionary<string, object?> jobs)
    {
        Dictionary<string, object?> local = Map(Map(jobs, "postgresql-local"), "source");
        return Path.GetFullPath(Path.Combine(Repository.PathOf("scenarios"), (string)local["localFolder"]!, (string)local["dockerFile"]!));
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
            Match template = CrankFiles.TemplateVariable().Match(endpoint);
            Assert.True(template.Success && rootVariables.ContainsKey(template.Groups["name"].Value), $"endpoint {endpoint} names no root variable");
        });
    }

    [GeneratedRegex(@"--(?<key>[A-Za-z][\w:]*)")]
    private static partial Regex ConfigurationSwitch();

    [GeneratedRegex(@"^[0-9]+$")]
    private static partial Regex CountSuffix();

    [GeneratedRegex(@"--urls (?<urls>\S+)")]
    private static partial Regex UrlsSwitch();
}
