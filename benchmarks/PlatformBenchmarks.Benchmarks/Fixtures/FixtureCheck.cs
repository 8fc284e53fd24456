namespace PlatformBenchmarks.Benchmarks.Fixtures;

/// <summary>
/// Correctness checks for benchmark set-up. A benchmark that measures a failed parse or a wrong response would
/// report a fine number for the wrong work; throwing in GlobalSetup makes BenchmarkDotNet, and the validation run,
/// report it as failed instead.
/// </summary>
internal static class FixtureCheck
{
    public static void That(bool condition, string what)
    {
        if (!condition)
        {
            throw new InvalidOperationException($"Benchmark check failed: {what}.");
        }
    }
}
