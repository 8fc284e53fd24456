using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>How the code under test drives PostgreSQL: each test that touches the database runs in every mode.</summary>
public enum Mode
{
    /// <summary>The default: multiplexing, the reads of a request sent together as separate commands.</summary>
    Multiplexing,


    /// <summary>Plain pooling, the reads of a request in one error-barriered batch.</summary>
    Pooled,

}

/// <summary>
/// The real PostgreSQL the tests run against: the connection string comes from the environment variable
/// <c>ConnectionString</c>, else it is the one <c>scripts/db.sh connection-string</c> prints for the local cluster.
/// </summary>
internal static class TestDatabase
{
    private static readonly Lazy<Database>[] s_shared = Enum.GetValues<Mode>().Select(mode => new Lazy<Database>(() => Create(mode))).ToArray();

    private static readonly Lazy<NpgsqlDataSource> s_direct = new(() => NpgsqlDataSource.Create(ConnectionString));

    /// <summary>Every mode with the TFB count, and the counts' extremes in the main modes: the rows-per-request theories.</summary>
    public static TheoryData<Mode, int> ModesAndCounts => new()
    {
        { Mode.Multiplexing, 1 },
        { Mode.Multiplexing, 20 },
        { Mode.Multiplexing, 500 },
        { Mode.Pooled, 1 },
        { Mode.Pooled, 20 },
        { Mode.Pooled, 500 },
    };

    public static string ConnectionString
        => Environment.GetEnvironmentVariable("ConnectionString") is { Length: > 0 } configured ? configured : DatabaseOptions.LocalConnectionString;

    /// <param name="extraKeywords">Npgsql keywords appended to the connection string, e.g. <c>"Timeout=60"</c>.</param>
    public static DatabaseOptions Options(Mode mode, string extraKeywords = "") => new()
    {
        ConnectionString = extraKeywords.Length == 0 ? ConnectionString : $"{ConnectionString};{extraKeywords}",
        Multiplexing = mode is Mode.Multiplexing,
    };

    /// <summary>A fresh instance, for tests that must not share connections or breaker state with others.</summary>
    /// <param name="time">The circuit breaker's clock, a fake one that stands still unless given: a test that trips the
    /// breaker and moves past the fail-fast period brings its own and advances it.</param>
    public static Database Create(Mode mode, string extraKeywords = "", TimeProvider? time = null) => new(Options(mode, extraKeywords), time ?? new FakeTimeProvider(), NullLogger.Instance);

    /// <summary>
    /// A database on port 1 of loopback, where nothing listens: every connection attempt is refused at once.
    /// <paramref name="extraKeywords"/> start with their separator, e.g. <c>";Timeout=60"</c>.
    /// </summary>
    public static Database Refused(bool multiplexing, TimeProvider time, ILogger? logger = null, string extraKeywords = "") => new(new DatabaseOptions
    {
        ConnectionString = $"Host=127.0.0.1;Port=1;Database=hello_world;Username=benchmarkdbuser;Password=benchmarkdbpass{extraKeywords}",
        Multiplexing = multiplexing,
    }, time, logger ?? NullLogger.Instance);

    /// <summary>One instance per mode shared by the tests that run while the database is up.</summary>
    public static Database Shared(Mode mode) => s_shared[(int)mode].Value;

    /// <summary>Drops the direct pool's idle connections: after a server restart they are dead.</summary>
    public static void ClearDirectPool()
    {
        if (s_direct.IsValueCreated)
        {
            s_direct.Value.Clear();
        }
    }

    /// <summary>A plain connection, independent of the code under test, to check what it did.</summary>
    public static ValueTask<NpgsqlConnection> OpenDirectAsync() => s_direct.Value.OpenConnectionAsync();

    /// <summary>Ends the server processes of every connection opened with <paramref name="applicationName"/>.</summary>
    public static async Task TerminateBackendsAsync(string applicationName)
    {
        await using NpgsqlConnection connection = await OpenDirectAsync();
        await using var command = new NpgsqlCommand("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", connection);
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = applicationName });
        Assert.True((long)(await command.ExecuteScalarAsync())! > 0, $"no connection of {applicationName} to end");
    }

    /// <summary>Drops the idle direct connections (after their server processes were ended).</summary>
    public static void ClearDirectConnections() => s_direct.Value.Clear();

    /// <summary>The whole world table as read directly: element [id] holds the row's randomnumber (0 for no row).</summary>
    public static async Task<int[]> ReadWorldTableAsync()
    {
        await using NpgsqlConnection connection = await OpenDirectAsync();
        await using var command = new NpgsqlCommand("SELECT id, randomnumber FROM world", connection);
        await using NpgsqlDataReader reader = await command.ExecuteReaderAsync();
        int[] table = new int[World.MaxId + 1];
        while (await reader.ReadAsync())
        {
            table[reader.GetInt32(0)] = reader.GetInt32(1);
        }

        return table;
    }

    /// <summary>Fails with a clear message (never skips) when PostgreSQL cannot be reached: CI starts it with scripts/db.sh.</summary>
    public static async Task EnsureReachableAsync()
    {
        try
        {
            await using NpgsqlConnection connection = await OpenDirectAsync();
            await using var command = new NpgsqlCommand("SELECT count(*) FROM world", connection);
            long rows = (long)(await command.ExecuteScalarAsync())!;
            if (rows != World.MaxId)
            {
                throw new InvalidOperationException($"The world table has {rows} rows instead of {World.MaxId}: run scripts/db.sh reset.");
            }
        }
        catch (NpgsqlException exception)
        {
            var settings = new NpgsqlConnectionStringBuilder(ConnectionString);
            throw new InvalidOperationException(
                $"PostgreSQL is not reachable at {settings.Host}:{settings.Port} ({exception.Message}). "
                + "Start it with: sudo scripts/db.sh start (or set ConnectionString).",
                exception);
        }
    }
}

/// <summary>Shared by the database test classes: checks once per class that PostgreSQL is there, so that they fail clearly.</summary>
public sealed class PostgresFixture : IAsyncLifetime
{
    public Task InitializeAsync() => TestDatabase.EnsureReachableAsync();

    public Task DisposeAsync() => Task.CompletedTask;
}

/// <summary>
/// The tests that read and write the world table run one after another: the update tests change rows that the read and
/// cache tests compare with the table.
/// </summary>
[CollectionDefinition(Name)]
public sealed class WorldTableTests : ICollectionFixture<PostgresFixture>
{
    public const string Name = "World table";
}

/// <summary>
/// Tests that need the database to themselves: pg_stat_statements counts are global and the outage tests stop the
/// server. xunit runs non-parallel collections after all the others.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ExclusiveDatabaseTests : ICollectionFixture<PostgresFixture>
{
    public const string Name = "Exclusive database";
}
