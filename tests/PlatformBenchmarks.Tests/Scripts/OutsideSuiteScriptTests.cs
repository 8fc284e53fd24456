using System.Runtime.Versioning;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scripts;

/// <summary>
/// The scripts that run an outside suite (<c>scripts/conformance.sh</c>, <c>scripts/httparena-validate.sh</c>) run what
/// the user gives and build nothing of it, return when the suite's program does, and print their own usage.
/// </summary>
[UnsupportedOSPlatform("windows")] // the scripts are bash
public sealed class OutsideSuiteScriptTests : IDisposable
{
    private readonly StubCommands _commands = new();
    private readonly string _scratch = Directory.CreateTempSubdirectory("pb-suite-").FullName;

    public void Dispose()
    {
        _commands.Dispose();
        Directory.Delete(_scratch, recursive: true);
    }

    [Theory]
    [InlineData("scripts/conformance.sh")]
    [InlineData("scripts/httparena-validate.sh")]
    [InlineData("scripts/db.sh")]
    public async Task HelpPrintsTheScriptsLeadingCommentAndNothingElse(string script)
    {
        string[] lines = await File.ReadAllLinesAsync(Repository.PathOf(script));
        string[] comment = [.. lines.Skip(1).TakeWhile(line => line.StartsWith('#'))
            .Select(line => line.Length > 1 && line[1] == ' ' ? line[2..] : line[1..])];

        ProcessResult run = await _commands.RunAsync([script, "--help"]);

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(comment, run.Output.TrimEnd('\n').Split('\n'));
    }

    [Fact]
    public async Task ConformanceRunsTheProbeGivenAgainstTheUrlAndBuildsNothing()
    {
        _commands.Write("dotnet", "echo \"dotnet $*\" >&2\nexit 97");
        string probe = _commands.Write("Http11Probe.Cli", $"echo \"$*\" > {_scratch}/arguments\necho 'Score: 160/161'\nexit 1");

        ProcessResult run = await _commands.RunAsync(["scripts/conformance.sh", probe, "--url", "http://127.0.0.1:9", "--out", _scratch]);

        Assert.True(run.ExitCode == 0 && run.Error.Length == 0, run.ToString());
        Assert.Contains("Score: 160/161\n", run.Output, StringComparison.Ordinal);
        Assert.Equal($"--host 127.0.0.1 --port 9 --output {_scratch}/probe.json\n", await File.ReadAllTextAsync(Path.Join(_scratch, "arguments")));
    }

    [Fact]
    public async Task ConformanceRefusesAPathThatIsNoProgram()
    {
        ProcessResult run = await _commands.RunAsync(["scripts/conformance.sh", _scratch, "--url", "http://127.0.0.1:9"]);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("is not a file", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task HttpArenaValidateReturnsWhenTheVenuesScriptDoesNotWhenWhatItLeftBehindDoes()
    {
        // The venue's validate.sh leaves a watchdog behind, a process holding its output that outlives it (a sleep of
        // the whole time budget there; here one that never ends). The script must answer when validate.sh exits.
        string checkout = Directory.CreateDirectory(Path.Join(_scratch, "arena")).FullName;
        Directory.CreateDirectory(Path.Join(checkout, "data"));
        Directory.CreateDirectory(Path.Join(checkout, "scripts"));
        await File.WriteAllTextAsync(Path.Join(checkout, "scripts", "validate.sh"), """
            ( trap 'exit 0' TERM; while :; do sleep 3600; done ) &
            echo "=== Validating: $1 ==="
            echo "PASS: 1 of 1"
            exit 3
            """);
        _commands.Write("dotnet", "exit 0"); // the server's build

        // In a network namespace of its own, so that no server listening on this machine's port 8080 is in the way, and a
        // process namespace of its own, so that nothing it leaves behind outlives the test.
        ProcessResult run = await _commands.RunAsync("unshare", ["--map-root-user", "--net", "--pid", "--fork", "/bin/bash", "scripts/httparena-validate.sh", checkout, "--out", Path.Join(_scratch, "out")]);

        Assert.True(run.ExitCode == 3, run.ToString());
        Assert.Contains("=== Validating: platformbenchmarks ===\nPASS: 1 of 1\n", run.Output, StringComparison.Ordinal);
        Assert.Equal("=== Validating: platformbenchmarks ===\nPASS: 1 of 1\n", await File.ReadAllTextAsync(Path.Join(_scratch, "out", "validate.txt")));
    }
}
