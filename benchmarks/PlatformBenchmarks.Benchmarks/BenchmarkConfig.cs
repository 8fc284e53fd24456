using BenchmarkDotNet.Configs;

namespace PlatformBenchmarks.Benchmarks;

/// <summary>The configuration of a normal run; jobs, filters and exporters come from the command line as usual.</summary>
internal static class BenchmarkConfig
{
    public static IConfig Create() => DefaultConfig.Instance;
}
