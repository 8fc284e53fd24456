using System.Diagnostics;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>
/// Stops the real server (scripts/db.sh stop, so the tests need root and the local cluster), checks that calls fail fast with
/// the outcome the HTTP layer maps to 503, restarts it, and checks that the same instance recovers by itself.
/// </summary>
[Collection(ExclusiveDatabaseTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class OutageTests
{
    // "Fast" is shown against a connect timeout of a minute: a call that waited for it would take 60 s, a refused
    // connection takes a moment. The bound sits far from both, so a busy machine cannot make the test fail.
    private const string LongConnectTimeout = "Timeout=60";
    private static readonly TimeSpan s_fastLimit = TimeSpan.FromSeconds(20);

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task AStoppedDatabaseFailsFastAndCallsRecoverOnceItIsBack(Mode mode)
    {
        var time = new FakeTimeProvider();
        await using Database database = TestDatabase.Create(mode, LongConnectTimeout, time);
        using var cache = new WorldCache(database, time);
        Assert.True((await cache.TryWarmUpAsync()).IsAvailable);
        // Leave pooled connections behind: they go stale when the server stops.
        await Task.WhenAll(Enumerable.Range(0, 32).Select(_ => database.LoadWorldsAsync(20).AsTask()));

        await DbScript.RunAsync("stop");
        try
        {
            var stopwatch = Stopwatch.StartNew();
            DataFailure first = Unavailable((await database.LoadSingleWorldAsync()).Failure);
            Assert.True(stopwatch.Elapsed < s_fastLimit, $"the first failure took {stopwatch.Elapsed.TotalMilliseconds} ms");
            Assert.False(string.IsNullOrWhiteSpace(first.Reason));

            // Within the fail-fast period the breaker answers without trying the server at all: its own reason says so.
            stopwatch.Restart();
            foreach (DataFailure? failure in new[]
            {
                (await database.LoadWorldsAsync(20)).Failure,
                (await database.UpdateWorldsAsync(20)).Failure,
                (await database.LoadFortunesAsync()).Failure,
                (await database.LoadSingleWorldAsync()).Failure,
            })
            {
                Assert.Contains("failing fast", Unavailable(failure).Reason, StringComparison.Ordinal);
            }

            Assert.True(stopwatch.Elapsed < s_fastLimit, $"four calls took {stopwatch.Elapsed.TotalMilliseconds} ms");

            // The cache keeps answering from memory.
            Assert.Equal(500, (await cache.GetCachedWorldsAsync(500)).Value.Length);

            DatabaseStatus status = await database.TryWarmUpAsync();
            Assert.False(status.IsAvailable);
            Assert.Contains("unavailable", status.Description, StringComparison.Ordinal);

            // Past the fail-fast period the breaker probes the server again: still refused, still fast.
            time.Advance(TimeSpan.FromMilliseconds(1000));
            stopwatch.Restart();
            Unavailable((await database.LoadSingleWorldAsync()).Failure);
            Assert.True(stopwatch.Elapsed < s_fastLimit, $"the probe took {stopwatch.Elapsed.TotalMilliseconds} ms");
        }
        finally
        {
            await DbScript.RunAsync("start");
        }

        // No restart of ours: the same instance must come back within a few fail-fast periods.
        var recovery = Stopwatch.StartNew();
        while ((await database.LoadSingleWorldAsync()).Outcome is DataOutcome.Unavailable && recovery.Elapsed < TimeSpan.FromSeconds(10))
        {
            // PostgreSQL is a real process starting up: wait for it, and let the breaker's period pass.
            time.Advance(TimeSpan.FromMilliseconds(1000));
            await Task.Delay(50);
        }

        // And then every call works, across all the pool's connections.
        for (int i = 0; i < 5; i++)
        {
            await Task.WhenAll(Enumerable.Range(0, 64).Select(async _ =>
            {
                Assert.Equal(20, (await database.LoadWorldsAsync(20)).Value.Length);
                Assert.Equal(5, (await database.UpdateWorldsAsync(5)).Value.Length);
                Assert.Equal(12, (await database.LoadFortunesAsync()).Value.Count);
                Assert.Equal(DataOutcome.Available, (await database.LoadSingleWorldAsync()).Outcome);
            }));
        }

        Assert.True((await database.TryWarmUpAsync()).IsAvailable);
    }

    private static DataFailure Unavailable(DataFailure? failure)
    {
        Assert.NotNull(failure);
        Assert.Equal(DataOutcome.Unavailable, failure.Outcome);
        return failure;
    }
}

/// <summary>Runs scripts/db.sh, found by walking up from the test binaries to the repository root.</summary>
internal static class DbScript
{
    public static async Task RunAsync(string command)
    {
        string script = FindScript();
        using Process process = Process.Start(new ProcessStartInfo("bash", [script, command])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        })!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        Assert.True(process.ExitCode == 0, $"scripts/db.sh {command} exited with {process.ExitCode}: {await output}{await error}");

        // Stopping or starting the server kills every open connection, the tests' own pooled ones included.
        TestDatabase.ClearDirectPool();
    }

    private static string FindScript()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            string candidate = Path.Combine(directory.FullName, "scripts", "db.sh");
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        throw new FileNotFoundException("scripts/db.sh not found above " + AppContext.BaseDirectory);
    }
}
