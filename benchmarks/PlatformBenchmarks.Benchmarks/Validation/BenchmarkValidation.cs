using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using BenchmarkDotNet.Validators;

namespace PlatformBenchmarks.Benchmarks.Validation;

/// <summary>
/// Runs every benchmark once, in this process, to prove each one still sets up (its correctness checks included),
/// runs and cleans up. It measures nothing: one cold invocation, no warm-up, no pilot. This is what CI runs, through
/// <c>BenchmarksValidationTests</c>, so a broken benchmark cannot land.
/// </summary>
public static class BenchmarkValidation
{
    /// <summary>Runs the benchmarks <paramref name="args"/> select (all of them without a <c>--filter</c>).</summary>
    /// <param name="args">BenchmarkDotNet command-line arguments, e.g. <c>--filter *Parsing*</c>.</param>
    /// <param name="log">
    /// Where BenchmarkDotNet's errors go when the validation fails (nothing else of its log is written). A passing run
    /// writes nothing: BenchmarkDotNet also logs non-critical warnings as errors, such as that the assembly is under
    /// the temporary folder, which matters only to its out-of-process runs.
    /// </param>
    public static ValidationOutcome Run(IReadOnlyList<string> args, TextWriter log)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(log);

        // Like BenchmarkDotNet's Dry job, but in process: no project to generate and build, so it takes seconds.
        Job job = new Job("Validate")
            .WithToolchain(InProcessEmitToolchain.Instance)
            .WithStrategy(RunStrategy.ColdStart)
            .WithLaunchCount(1)
            .WithWarmupCount(0)
            .WithIterationCount(1)
            .WithInvocationCount(1)
            .WithUnrollFactor(1)
            .WithEvaluateOverhead(false);

        string artifacts = Path.Combine(Path.GetTempPath(), $"PlatformBenchmarks.Validate.{Environment.ProcessId}");
        using var errors = new StringWriter();
        IConfig config = ManualConfig.CreateEmpty()
            .AddJob(job)
            .AddLogger(new TextWriterLogger(errors))
            .AddColumnProvider(DefaultColumnProviders.Instance)

            // An exporter to the (filtered) log, only so that BenchmarkDotNet does not warn that nothing is exported.
            .AddExporter(BenchmarkDotNet.Exporters.MarkdownExporter.Console)

            // Runs each benchmark's setup, body and cleanup once more and reports anything they throw.
            .AddValidator(ExecutionValidator.FailOnError)
            .WithArtifactsPath(artifacts)

            // The test project builds in Debug; an unoptimised build is fine for a run that only checks.
            .WithOptions(ConfigOptions.DisableOptimizationsValidator | ConfigOptions.DisableLogFile);

        string[] arguments = args.Any(a => a.StartsWith("--filter", StringComparison.Ordinal) || a == "-f")
            ? [.. args]
            : [.. args, "--filter", "*"];

        var failures = new List<string>();
        int benchmarks = 0;
        try
        {
            foreach (Summary summary in BenchmarkSwitcher.FromAssembly(typeof(BenchmarkValidation).Assembly).Run(arguments, config))
            {
                benchmarks += summary.BenchmarksCases.Length;
                foreach (ValidationError error in summary.ValidationErrors.Where(e => e.IsCritical))
                {
                    failures.Add(error.BenchmarkCase is null ? error.Message : $"{Name(error.BenchmarkCase)}: {error.Message}");
                }

                foreach (BenchmarkReport report in summary.Reports)
                {
                    if (!report.Success || report.ResultStatistics is null)
                    {
                        failures.Add($"{Name(report.BenchmarkCase)}: did not run to completion (see the log above)");
                    }
                }

                if (summary.Reports.Length != summary.BenchmarksCases.Length)
                {
                    failures.Add($"{summary.Title}: {summary.BenchmarksCases.Length} benchmarks, {summary.Reports.Length} reports");
                }
            }
        }
        finally
        {
            try
            {
                Directory.Delete(artifacts, recursive: true);
            }
            catch (DirectoryNotFoundException)
            {
                // Nothing was written.
            }
        }

        if (benchmarks == 0 && failures.Count == 0)
        {
            failures.Add("No benchmark ran: check the --filter.");
        }

        if (failures.Count > 0)
        {
            log.Write(errors.ToString());
        }

        return new ValidationOutcome(benchmarks, failures);
    }

    private static string Name(BenchmarkCase benchmark) => benchmark.HasParameters
        ? $"{benchmark.Descriptor.DisplayInfo} {benchmark.Parameters.DisplayInfo}"
        : benchmark.Descriptor.DisplayInfo;

    /// <summary>BenchmarkDotNet's errors into any <see cref="TextWriter"/> (the console, or a test's buffer).</summary>
    private sealed class TextWriterLogger : ILogger
    {
        private readonly TextWriter _writer;

        public TextWriterLogger(TextWriter writer) => _writer = writer;

        public string Id => nameof(TextWriterLogger);

        public int Priority => 0;

        // Only errors: the rest of BenchmarkDotNet's log (its summary tables, timings of a single cold call) would look
        // like a measurement, and this run measures nothing. Program prints the one-line outcome instead.
        public void Write(LogKind logKind, string text)
        {
            if (logKind == LogKind.Error)
            {
                _writer.Write(text);
            }
        }

        public void WriteLine()
        {
        }

        public void WriteLine(LogKind logKind, string text)
        {
            if (logKind == LogKind.Error)
            {
                _writer.WriteLine(text);
            }
        }

        public void Flush() => _writer.Flush();
    }
}

/// <summary>The result of <see cref="BenchmarkValidation.Run"/>.</summary>
public sealed class ValidationOutcome
{
    public ValidationOutcome(int benchmarkCount, IReadOnlyList<string> failures)
    {
        BenchmarkCount = benchmarkCount;
        Failures = failures;
    }

    /// <summary>How many benchmark cases (method and parameter combinations) ran.</summary>
    public int BenchmarkCount { get; }

    public IReadOnlyList<string> Failures { get; }

    public bool Succeeded => Failures.Count == 0;

    public string Describe() => Succeeded
        ? $"Validation passed: {BenchmarkCount} benchmark cases ran once each."
        : $"Validation failed, {Failures.Count} problem(s) in {BenchmarkCount} benchmark cases:{Environment.NewLine}  "
            + string.Join(Environment.NewLine + "  ", Failures);
}
