using System.Runtime.Versioning;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scripts;

/// <summary>
/// <c>scripts/test.sh --unit</c> under a stand-in <c>dotnet</c> that prints what <c>dotnet test</c> prints for a
/// solution of two test projects: one summary per project, which the script adds up on its last line. The per-test
/// lines between hold "Passed" and "Failed" too, and are not counted.
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
            echo "  Failed PlatformBenchmarks.Tests.Other.Test [5 ms]"
            {string.Concat(summaries.Select(summary => $"echo '{summary}'\n"))}
            exit {exitCode}
            """);

    // What dotnet test prints for a test project at normal verbosity (the logger test.sh asks for), and at minimal.
    private static string[] Block(int passed, int failed = 0, int skipped = 0) =>
    [
        failed > 0 ? "Test Run Failed." : "Test Run Successful.",
        $"Total tests: {passed + failed + skipped}",
        $"     Passed: {passed}",
        .. failed > 0 ? [$"     Failed: {failed}"] : Array.Empty<string>(),
        .. skipped > 0 ? [$"    Skipped: {skipped}"] : Array.Empty<string>(),
        " Total time: 9.0288 Seconds",
    ];

    private static string Line(int passed, int failed = 0, int skipped = 0) =>
        $"{(failed > 0 ? "Failed!" : "Passed!")}  - Failed: {failed,5}, Passed: {passed,5}, Skipped: {skipped,5}, Total: {passed + failed + skipped,5}, Duration: 9 s - X.Tests.dll (net10.0)";

    public static TheoryData<int, string[], string> Summaries => new()
    {
        { 0, [.. Block(412), .. Block(95)], "507 passed, 0 failed" },
        { 1, [.. Block(410, failed: 2, skipped: 3), .. Block(95)], "505 passed, 2 failed, 3 skipped" },
        { 1, [Line(410, failed: 2, skipped: 3), Line(95)], "505 passed, 2 failed, 3 skipped" },
    };

    [Theory]
    [MemberData(nameof(Summaries))]
    public async Task TheLastLineIsTheTotalOverEveryProjectAndTheExitCodeIsDotnetTests(int exitCode, string[] summaries, string total)
    {
        DotnetTestPrints(exitCode, summaries);

        ProcessResult run = await _commands.RunAsync(["scripts/test.sh", "--unit"]);

        Assert.True(run.ExitCode == exitCode, run.ToString());
        Assert.EndsWith($"{summaries[^1]}\n{total}\n", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AFilterGivenNarrowsTheUnitTestsInsteadOfReplacingTheirFilter()
    {
        DotnetTestPrints(0, Block(4));

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
