using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using PlatformBenchmarks.Benchmarks.Validation;

namespace PlatformBenchmarks.Benchmarks;

public static class Program
{
    /// <summary>The argument that runs every benchmark once, in process, as a check rather than a measurement.</summary>
    public const string ValidateArgument = "--validate";

    public static int Main(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (args.Contains(ValidateArgument, StringComparer.Ordinal))
        {
            string[] rest = [.. args.Where(a => a != ValidateArgument)];
            ValidationOutcome outcome = BenchmarkValidation.Run(rest, Console.Out);
            Console.Out.WriteLine(outcome.Describe());
            return outcome.Succeeded ? 0 : 1;
        }

        IEnumerable<Summary> summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, BenchmarkConfig.Create());

        // A failed benchmark must fail the command too, not just print an empty row.
        return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
    }
}
