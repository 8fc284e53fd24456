using System.Runtime.Versioning;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scripts;

/// <summary>
/// <c>scripts/run.sh</c>: <c>--help</c> prints the server's usage and starts neither PostgreSQL nor the server; a run
/// passes the sample dataset and static folder unless told otherwise. Its commands are stand-ins on PATH: <c>dotnet</c>
/// says how it was called, and <c>bash</c> (how run.sh calls db.sh) fails loudly, or stands for db.sh when a test runs
/// the server.
/// </summary>
[UnsupportedOSPlatform("windows")] // the scripts are bash
public sealed class RunScriptTests : IDisposable
{
    private static readonly string s_project = Repository.PathOf("src", "PlatformBenchmarks");
    private static readonly string s_sample = $"--HttpArena:DatasetPath {Repository.PathOf("samples", "httparena", "dataset.json")}";
    private static readonly string s_sampleStatic = $"--HttpArena:StaticPath {Repository.PathOf("samples", "httparena", "static")}";

    private readonly StubCommands _commands = new();

    public RunScriptTests() => _commands.Write("dotnet", "echo \"dotnet $*\"");

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("--urls", "http://127.0.0.1:9090", "--help")]
    public async Task HelpPrintsTheServersUsageWithoutStartingPostgreSqlOrTheServer(params string[] args)
    {
        _commands.Write("bash", "echo \"bash $*\" >&2\nexit 97");

        ProcessResult run = await _commands.RunAsync(["scripts/run.sh", .. args]);

        Assert.True(run.ExitCode == 0 && run.Error.Length == 0, run.ToString());
        Assert.EndsWith($"dotnet run -c Release --project {s_project} -- --help\n", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WithNothingGivenTheServerServesTheSample()
    {
        ProcessResult run = await RunServerAsync(["--urls", "http://127.0.0.1:9090"]);

        Assert.EndsWith(
            $"dotnet run -c Release --project {s_project} -- --ConnectionString Host=db {s_sample} {s_sampleStatic} --urls http://127.0.0.1:9090\n",
            run.Output,
            StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--HttpArena:DatasetPath /data/dataset.json", null, true)]
    [InlineData("--httparena:datasetpath=/data/dataset.json", null, true)]
    [InlineData("--HttpArena:StaticPath /data/static", null, false)]
    [InlineData("", "HttpArena__DatasetPath", true)]
    [InlineData("", "HTTPARENA__STATICPATH", false)]
    public async Task ADatasetOrStaticFolderGivenReplacesOnlyThatPartOfTheSample(string arguments, string? variable, bool datasetGiven)
    {
        string[] given = arguments.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Dictionary<string, string> environment = variable is null ? [] : new() { [variable] = "/data/elsewhere" };

        ProcessResult run = await RunServerAsync(given, environment);

        string sample = datasetGiven ? s_sampleStatic : s_sample;
        string expected = $"dotnet run -c Release --project {s_project} -- --ConnectionString Host=db {sample}{(given.Length > 0 ? " " : "")}{string.Join(' ', given)}\n";
        Assert.True(run.Output.EndsWith(expected, StringComparison.Ordinal), run.ToString());
    }

    public void Dispose() => _commands.Dispose();

    // db.sh (run through bash) starts nothing and gives a connection string; ldconfig finds libdeflate, so nothing is installed.
    private async Task<ProcessResult> RunServerAsync(string[] args, Dictionary<string, string>? environment = null)
    {
        _commands.Write("bash", "case \"$2\" in connection-string) echo 'Host=db' ;; start) ;; *) exit 97 ;; esac");
        _commands.Write("ldconfig", "echo 'libdeflate.so.0 (libc6,x86-64) => /usr/lib/libdeflate.so.0'");

        ProcessResult run = await _commands.RunAsync(["scripts/run.sh", .. args], environment);

        Assert.True(run.ExitCode == 0, run.ToString());
        return run;
    }
}
