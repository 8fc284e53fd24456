using PlatformBenchmarks.Benchmarks.Validation;
using Xunit.Abstractions;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Benchmarks;

/// <summary>
/// Keeps the benchmarks runnable: every benchmark runs once, in this process (the same check as
/// <c>dotnet run -c Release --project benchmarks/PlatformBenchmarks.Benchmarks -- --validate</c>), including each
/// one's set-up checks that it measures a correct parse or response. In process rather than through
/// <c>dotnet run</c>, so CI builds nothing twice and the whole check takes seconds.
/// </summary>
[Trait(TestCategory.Name, TestCategory.System)]
public class BenchmarksValidationTests
{
    private readonly ITestOutputHelper _output;

    public BenchmarksValidationTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public void EveryBenchmarkRunsOnceWithoutFailing()
    {
        using var log = new StringWriter();
        ValidationOutcome outcome = BenchmarkValidation.Run([], log);
        _output.WriteLine(log.ToString());

        Assert.True(outcome.Succeeded, outcome.Describe());
        Assert.True(outcome.BenchmarkCount >= 31, $"Only {outcome.BenchmarkCount} benchmark cases ran.");
    }

    /// <summary>
    /// The <c>--validate</c> command as a person runs it (the benchmarks program, built beside this assembly): when every
    /// benchmark passes it prints its one summary line and nothing else, no BenchmarkDotNet log, no table that looks like
    /// a measurement.
    /// </summary>
    [Fact]
    public async Task TheValidateCommandPrintsOnlyItsSummaryLineOnSuccess()
    {
        string program = Path.Combine(AppContext.BaseDirectory, "PlatformBenchmarks.Benchmarks.dll");

        ProcessResult result = await ChildProcess.RunAsync("dotnet", [program, PlatformBenchmarks.Benchmarks.Program.ValidateArgument], TimeSpan.FromMinutes(2));

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Equal(string.Empty, result.Error);
        string line = Assert.Single(result.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Matches(@"^Validation passed: \d+ benchmark cases ran once each\.$", line.TrimEnd('\r'));
    }
}
