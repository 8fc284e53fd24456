using System.Runtime.Versioning;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scripts;

/// <summary>
/// <c>scripts/run.sh --help</c> prints the server's usage, and starts neither PostgreSQL nor the server. Its commands are
/// stand-ins on PATH: <c>dotnet</c> says how it was called, and <c>bash</c> (how run.sh calls db.sh) fails loudly.
/// </summary>
[UnsupportedOSPlatform("windows")] // the scripts are bash
public sealed class RunScriptTests : IDisposable
{
    private readonly string _bin = Directory.CreateTempSubdirectory("run-sh-").FullName;

    public RunScriptTests()
    {
        WriteCommand("dotnet", "echo \"dotnet $*\"");
        WriteCommand("bash", "echo \"bash $*\" >&2\nexit 97");
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("--urls", "http://127.0.0.1:9090", "--help")]
    public async Task HelpPrintsTheServersUsageWithoutStartingPostgreSqlOrTheServer(params string[] args)
    {
        ProcessResult run = await ChildProcess.RunAsync(
            "/bin/bash",
            ["scripts/run.sh", .. args],
            TimeSpan.FromMinutes(1),
            environment: new Dictionary<string, string> { ["PATH"] = $"{_bin}:{Environment.GetEnvironmentVariable("PATH")}" });

        Assert.True(run.ExitCode == 0 && run.Error.Length == 0, run.ToString());
        Assert.EndsWith($"dotnet run -c Release --project {Repository.PathOf("src", "PlatformBenchmarks")} -- --help\n", run.Output, StringComparison.Ordinal);
    }

    public void Dispose() => Directory.Delete(_bin, recursive: true);

    private void WriteCommand(string name, string body)
    {
        string path = Path.Combine(_bin, name);
        File.WriteAllText(path, $"#!/bin/sh\n{body}\n");
        File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
    }
}
