namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>Parts of a load run's results.json (scenarios/loadrun/runner.py writes it), for the report's tests to write.</summary>
internal static class LoadRunDocument
{
    /// <summary>The run's "meta": a short profile on a test machine with wrk 4.1.0, started by <paramref name="command"/>.</summary>
    public static object Meta(int rounds, string command, int wrkThreadsMax) => new
    {
        profile = "short",
        rounds,
        started = "2026-01-02T03:04:05Z",
        finished = "2026-01-02T03:05:05Z",
        command,
        host = new { cpu = "test", logical_cpus = 2, kernel = "6.1" },
        wrk = "wrk 4.1.0",
        wrk_threads_max = wrkThreadsMax,
        git = new { commit = "0000000", dirty = false },
    };
}
