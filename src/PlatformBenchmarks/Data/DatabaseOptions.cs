using System.Data.Common;
using Microsoft.Extensions.Options;
using Npgsql;

namespace PlatformBenchmarks.Data;

/// <summary>
/// How to reach PostgreSQL and how to drive it, bound at start-up from configuration (options pattern, checked by
/// <see cref="DatabaseOptionsValidator"/>):
/// <list type="bullet">
/// <item><c>ConnectionString</c> (also the environment variable of that name): an Npgsql connection string; defaults to TFB's
/// <c>tfb-database</c>. The tuning keywords below are added only when the string does not set them itself.</item>
/// <item><c>Database:Multiplexing</c> (true/false): overrides the connection string's <c>Multiplexing</c>; on by default.</item>
/// <item><c>Database:MaxPoolSize</c>: overrides the connection string's <c>Maximum Pool Size</c>.</item>
/// <item><c>Database:LoopConnections</c> (default 2): connections each transport loop owns for its per-turn batches of
/// reads (<see cref="DatabaseLane"/>); 0 sends every read through the shared pool.</item>
/// <item><c>Database:FailFastMilliseconds</c> (default 1000): how long calls fail immediately after the database proved unreachable.</item>
/// <item><c>DATABASE_URL</c>: the database as a URL (<see cref="HttpArenaDatabaseUrl"/>), HttpArena's form; instead of <c>ConnectionString</c>, never beside it.</item>
/// <item><c>DATABASE_MAX_CONN</c>: the most connections the database accepts (HttpArena sets it): the pool's size when
/// neither <c>Database:MaxPoolSize</c> nor the connection string sets one.</item>
/// </list>
/// </summary>
internal sealed class DatabaseOptions
{
    /// <summary>TFB's database (docs/tfb-rules.md §8). Plain text over a private Docker network, as in TFB's own apps.</summary>
    public const string TfbConnectionString =
        "Server=tfb-database;Database=hello_world;User Id=benchmarkdbuser;Password=benchmarkdbpass;SSL Mode=Disable";

    /// <summary>The local cluster <c>scripts/db.sh</c> runs, as its <c>connection-string</c> prints it: for tests and benchmarks.</summary>
    internal const string LocalConnectionString =
        "Host=127.0.0.1;Port=5433;Database=hello_world;Username=benchmarkdbuser;Password=benchmarkdbpass;SSL Mode=Disable";

    // With multiplexing, 8 connections measured the least CPU per response on /db and /fortunes against 4 and 16, and
    // 4 starved /updates/20. Without multiplexing, 16, 32 and 64 were level within the noise; 32 is the middle
    // (scenarios/results/20261125-database-pool-size.md).
    public const int DefaultMultiplexingPoolSize = 8;
    public const int DefaultPooledPoolSize = 32;
    public const int DefaultMaxAutoPrepare = 512;
    public const int DefaultLoopConnections = 2;
    public const int MaxLoopConnections = 64;
    public const int DefaultConnectTimeoutSeconds = 2;
    public const int DefaultPooledTimeoutSeconds = 5;

    /// <summary>Planner settings for our sessions; see <see cref="CreateConnectionStringBuilder"/> for why.</summary>
    public const string SessionOptions = "-c enable_hashjoin=off -c enable_mergejoin=off";

    /// <summary>The root <c>ConnectionString</c> key (not in the <c>Database</c> section, as TFB entries name it).</summary>
    public string ConnectionString { get; set; } = TfbConnectionString;

    /// <summary>null: the connection string's keyword if present, else on.</summary>
    public bool? Multiplexing { get; set; }

    /// <summary>null: the connection string's keyword if present, else a default for the mode.</summary>
    public int? MaxPoolSize { get; set; }

    /// <summary>Connections each transport loop owns for its batches of reads; 0: none, every read goes through the shared pool.</summary>
    public int LoopConnections { get; set; } = DefaultLoopConnections;

    /// <summary>How long calls fail at once after the database proved unreachable (the circuit breaker's open period).</summary>
    public int FailFastMilliseconds { get; set; } = 1000;

    public TimeSpan FailFastPeriod => TimeSpan.FromMilliseconds(FailFastMilliseconds);

    /// <summary>The root key <c>DATABASE_URL</c> as given, or null. Internal: the binder leaves it to ServerSettings.</summary>
    internal string? Url { get; set; }

    /// <summary>Whether <c>ConnectionString</c> was configured rather than left to its default.</summary>
    internal bool ConnectionStringGiven { get; set; }

    /// <summary>The root key <c>DATABASE_MAX_CONN</c> as given, or null.</summary>
    internal string? MaxConnections { get; set; }

    /// <summary><c>DATABASE_MAX_CONN</c> as a pool size, when it is one (the validator refuses it otherwise).</summary>
    internal int? MaxConnectionsValue
        => int.TryParse(MaxConnections, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int value) && value is >= 1 and <= 10_000 ? value : null;

    /// <summary>The settings the URL or the connection string gives, before our defaults.</summary>
    private NpgsqlConnectionStringBuilder GivenSettings()
    {
        if (Url is null)
        {
            return new NpgsqlConnectionStringBuilder(ConnectionString);
        }

        return HttpArenaDatabaseUrl.TryParse(Url, out NpgsqlConnectionStringBuilder? settings, out string? error)
            ? settings
            : throw new InvalidOperationException($"DATABASE_URL is not a PostgreSQL URL: {error}.");
    }

    /// <summary>The final Npgsql settings: the connection string plus our defaults for every keyword it leaves out.</summary>
    public NpgsqlConnectionStringBuilder CreateConnectionStringBuilder()
    {
        NpgsqlConnectionStringBuilder builder = GivenSettings();
        HashSet<string> given = GivenKeywords(builder.ConnectionString);

        builder.Multiplexing = Multiplexing ?? (given.Contains("MULTIPLEXING") ? builder.Multiplexing : true);
        if (MaxPoolSize is int maxPoolSize)
        {
            builder.MaxPoolSize = maxPoolSize;
        }
        else if (!given.Contains("MAXPOOLSIZE") && !given.Contains("MAXIMUMPOOLSIZE"))
        {
            // Multiplexing shares each connection between many requests, so it needs few; without it a request holds its
            // connection for its whole round trip and queues for the pool under load. HttpArena says how many the
            // database takes and asks entries to size their pool from it (its async-database implementation.md).
            builder.MaxPoolSize = MaxConnectionsValue ?? (builder.Multiplexing ? DefaultMultiplexingPoolSize : DefaultPooledPoolSize);
        }

        // Auto-preparation keeps each statement parsed on each connection (prepared statements are encouraged, docs/tfb-rules.md §4.2).
        // Room for every statement we can send (the selects, one UPDATE per row count 1..500), so none is ever evicted.
        // Only the statements actually used get prepared, so the server holds a handful per connection. An eviction is
        // not only a cost: under multiplexing it can desynchronise Npgsql's protocol state, which 10.0.3 still does now
        // and then (docs/decisions/0009-data-results.md; DatabaseUpdateTests checks that the room holds every statement).
        if (!given.Contains("MAXAUTOPREPARE"))
        {
            builder.MaxAutoPrepare = DefaultMaxAutoPrepare;
        }

        if (!given.Contains("AUTOPREPAREMINUSAGES"))
        {
            builder.AutoPrepareMinUsages = 2;
        }

        // A short connect timeout keeps an unreachable host from holding requests (a refused or unresolvable one fails at
        // once anyway, and the circuit breaker answers the following calls). Without multiplexing the same setting also
        // bounds a request's wait for a pooled connection, which under load can take seconds: there it is longer.
        if (!given.Contains("TIMEOUT"))
        {
            builder.Timeout = builder.Multiplexing ? DefaultConnectTimeoutSeconds : DefaultPooledTimeoutSeconds;
        }

        // The updates test's one UPDATE joins the request's rows (a VALUES list in ascending id order) to the table. Above
        // about 40 rows PostgreSQL prefers a hash join over a scan of the table, and locks the rows in the table's physical
        // order, which changes as updated rows move within their pages: two concurrent requests then deadlock and one is
        // aborted after deadlock_timeout (a second). With hash and merge joins off for our sessions the plan is always the
        // VALUES list driving primary-key lookups, so every request locks its rows in ascending id order and none can wait
        // on another in a cycle. None of our other statements joins anything. Sent in the startup packet: no round trip.
        // A connection string that sets its own enable_hashjoin keeps it.
        if (builder.Options?.Contains("enable_hashjoin", StringComparison.OrdinalIgnoreCase) != true)
        {
            builder.Options = string.IsNullOrWhiteSpace(builder.Options) ? SessionOptions : $"{builder.Options} {SessionOptions}";
        }

        // We never change session state, so a connection going back to the pool needs no DISCARD ALL.
        if (!given.Contains("NORESETONCLOSE"))
        {
            builder.NoResetOnClose = true;
        }

        if (!given.Contains("ENLIST"))
        {
            builder.Enlist = false;
        }

        return builder;
    }

    /// <summary>The keywords the connection string sets, upper-cased without spaces (how Npgsql's aliases differ).</summary>
    private static HashSet<string> GivenKeywords(string connectionString)
    {
        var parsed = new DbConnectionStringBuilder { ConnectionString = connectionString };
        var keywords = new HashSet<string>(StringComparer.Ordinal);
        foreach (string key in parsed.Keys)
        {
            keywords.Add(key.Replace(" ", "", StringComparison.Ordinal).ToUpperInvariant());
        }

        return keywords;
    }
}

/// <summary>Refuses database settings the server cannot run with, naming the key.</summary>
internal sealed class DatabaseOptionsValidator : IValidateOptions<DatabaseOptions>
{
    public ValidateOptionsResult Validate(string? name, DatabaseOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        if (options.MaxPoolSize is < 1 or > 10_000)
        {
            failures.Add($"Configuration 'Database:MaxPoolSize' must be an integer in 1..10000, not {options.MaxPoolSize}.");
        }

        if (options.LoopConnections is < 0 or > DatabaseOptions.MaxLoopConnections)
        {
            failures.Add($"Configuration 'Database:LoopConnections' must be an integer in 0..{DatabaseOptions.MaxLoopConnections}, not {options.LoopConnections}.");
        }

        if (options.FailFastMilliseconds is < 0 or > 60_000)
        {
            failures.Add($"Configuration 'Database:FailFastMilliseconds' must be an integer in 0..60000, not {options.FailFastMilliseconds}.");
        }

        if (options.Url is not null && !HttpArenaDatabaseUrl.TryParse(options.Url, out _, out string? error))
        {
            failures.Add($"Configuration 'DATABASE_URL' is not a PostgreSQL URL (postgres://user:password@host:port/database): {error}.");
        }

        if (options.Url is not null && options.ConnectionStringGiven)
        {
            failures.Add("Configuration 'DATABASE_URL' and 'ConnectionString' both name the database: set only one of them.");
        }

        if (options.MaxConnections is not null && options.MaxConnectionsValue is null)
        {
            failures.Add($"Configuration 'DATABASE_MAX_CONN' must be an integer in 1..10000, not '{options.MaxConnections}'.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
