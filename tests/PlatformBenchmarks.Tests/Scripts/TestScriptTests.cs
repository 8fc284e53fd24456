using System.Runtime.Versioning;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scripts;

/// <summary>
/// <c>scripts/test.sh --unit</c> under a stand-in <c>dotnet</c> that prints what <c>dotnet test</c> prints for a
/// solution of two test projects: one summary per project, which the script adds up on its last line.
/// </summary>
[UnsupportedOSPlatform("windows")] // the scripts are bash
public sealed class TestScriptTests : IDisposable
{
    private readonly StubCommands _commands = new();

    public void Dispose() => _commands.Dispose();

    private void DotnetTestPrints(int exitCode, params string[] summaries)
        => _commands.Write("dotnet", $"""
            echo "dotnet $*"
            echo "  Passed PlatformBenchmarks.Tests.Some.Test [3 ms]"
            {string.Concat(summaries.Select(summary => $"echo '{summary}'\n"))}
            exit {exitCode}
            """);

    private const string Transport = "Passed!  - Failed:     0, Passed:    95, Skipped:     0, Total:    95, Duration: 9 s - PlatformBenchmarks.Transport.Tests.dll (net10.0)";

    [Theory]
    [InlineData(0, "Passed!  - Failed:     0, Passed:   412, Skipped:     0, Total:   412, Duration: 21 s - PlatformBenchmarks.Tests.dll (net10.0)", "507 passed, 0 failed")]
    [InlineData(1, "Failed!  - Failed:     2, Passed:   410, Skipped:     3, Total:   415, Duration: 21 s - PlatformBenchmarks.Tests.dll (net10.0)", "505 passed, 2 failed, 3 skipped")]
    public async Task TheLastLineIsTheTotalOverEveryProjectAndTheExitCodeIsDotnetTests(int exitCode, string server, string total)
    {
        DotnetTestPrints(exitCode, server, Transport);

        ProcessResult run = await _commands.RunAsync(["scripts/test.sh", "--unit"]);

        Assert.True(run.ExitCode == exitCode, run.ToString());
        Assert.EndsWith($"{Transport}\n{total}\n", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AFilterGivenNarrowsTheUnitTestsInsteadOfReplacingTheirFilter()
    {
        DotnetTestPrints(0, "Passed!  - Failed:     0, Passed:     4, Skipped:     0, Total:     4, Duration: 1 s - PlatformBenchmarks.Tests.dll (net10.0)");

        ProcessResult run = await _commands.RunAsync(["scripts/test.sh", "--unit", "--filter", "FullyQualifiedName~Parser", "--no-build"]);

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Contains("--filter (Category!=System)&(FullyQualifiedName~Parser) --no-build\n", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("--filter Category!=System", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WithoutASummaryTheScriptSaysSoAndFails()
    {
        DotnetTestPrints(1);

        ProcessResult run = await _commands.RunAsync(["scripts/test.sh", "--unit"]);

        Assert.True(run.ExitCode == 1, run.ToString());
        Assert.EndsWith("test.sh: no test summary was printed (did the build fail?)\n", run.Output, StringComparison.Ordinal);
    }
}
