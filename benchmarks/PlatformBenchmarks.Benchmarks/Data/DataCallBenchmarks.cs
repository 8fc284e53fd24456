using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;
using Microsoft.Extensions.Logging.Abstractions;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Benchmarks.Data;

/// <summary>
/// What one call of the data layer costs the process, against the local PostgreSQL (<c>scripts/db.sh start</c>; the
/// environment variable <c>ConnectionString</c> names another): its time, which is mostly the round trip, and the
/// bytes it allocates, which are ours and Npgsql's (docs/decisions/0009-data-results.md). Read-only, so a run leaves
/// the tables as they were. Off any transport loop: every call goes through the shared pool.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Data)]
public class DataCallBenchmarks : IDisposable
{

    private Database _database = null!;

    [Params(true, false)]
    public bool Multiplexing { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        string connectionString = Environment.GetEnvironmentVariable("ConnectionString") is { Length: > 0 } configured ? configured : DatabaseOptions.LocalConnectionString;
        _database = new Database(
            new DatabaseOptions { ConnectionString = connectionString, Multiplexing = Multiplexing },
            TimeProvider.System,
            NullLogger.Instance);
        DatabaseStatus status = _database.TryWarmUpAsync().GetAwaiter().GetResult();
        FixtureCheck.That(status.IsAvailable, $"the database answers ({status}; start it with scripts/db.sh start)");
        FixtureCheck.That(SingleWorld().AsTask().GetAwaiter().GetResult() == 1, "a single read brings its row");
        FixtureCheck.That(Worlds().AsTask().GetAwaiter().GetResult() == 20, "20 reads bring 20 rows");
        FixtureCheck.That(Fortunes().AsTask().GetAwaiter().GetResult() == 12, "the fortune table's 12 rows come back");
    }

    // Each benchmark awaits the call and returns a row count (the results are the data layer's own, internal, types);
    // its state machine box is pooled, so the bytes reported are the call's alone.
    [Benchmark]
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<int> SingleWorld() => (await _database.LoadSingleWorldAsync()).Failure is null ? 1 : 0;

    [Benchmark]
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<int> Worlds() => (await _database.LoadWorldsAsync(20)).Value.Length;

    [Benchmark]
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<int> Fortunes() => (await _database.LoadFortunesAsync()).Value.Count;

    [GlobalCleanup]
    public void Dispose()
    {
        _database?.Dispose();
        GC.SuppressFinalize(this);
    }
}
