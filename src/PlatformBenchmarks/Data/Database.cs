using System.Runtime.CompilerServices;
using Npgsql;

namespace PlatformBenchmarks.Data;

/// <summary>
/// The TFB queries over one <see cref="NpgsqlDataSource"/>. Knows nothing of HTTP, and lets nothing of Npgsql out: every
/// method hands back a <see cref="DataResult{T}"/>, its rows or a <see cref="DataFailure"/> (unreachable, fast thanks to a
/// <see cref="CircuitBreaker"/>; a missing row; a failing statement). Thread-safe; one instance serves the whole process.
/// </summary>
/// <remarks>
/// Every statement executes on the server as its own statement followed by its own Sync (docs/tfb-rules.md §2 #7): with
/// multiplexing the statements of one request are separate commands, which Npgsql writes out together with those of
/// other requests; without it they go out as one <see cref="NpgsqlBatch"/> with error barriers, i.e. a Sync after each.
/// </remarks>
internal sealed partial class Database : IAsyncDisposable, IDisposable
{
    internal const string WorldSql = "SELECT id, randomnumber FROM world WHERE id = $1";
    private const string AllWorldsSql = "SELECT id, randomnumber FROM world";
    // No ORDER BY: the fortunes test sorts in the application (docs/tfb-rules.md §4.5).
    internal const string FortuneSql = "SELECT id, message FROM fortune";

    private readonly NpgsqlDataSource _dataSource;
    // The transport loops' own connections (DatabaseLane), null when lanes are off.
    private readonly NpgsqlDataSource? _laneSource;
    private readonly int _loopConnections;
    // Each loop's lane at its DataLoop.Index, created on the loop's first read; replaced whole, under _laneLock, to grow.
    private DatabaseLane?[] _lanes = [];
    private readonly Lock _laneLock = new();
    private volatile bool _closed;
    // Outages seen so far (breaker trips from closed): a lane connection opened before the last one is presumed dead.
    private int _outages;
    private readonly CircuitBreaker _breaker;
    private readonly bool _multiplexing;
    private readonly ReusePool<NpgsqlCommand> _worldCommands;
    private readonly ReusePool<NpgsqlCommand> _fortuneCommands;
    private readonly ReusePool<NpgsqlCommand> _itemCommands;
    private readonly ReusePool<NpgsqlCommand>?[] _updateCommands = new ReusePool<NpgsqlCommand>?[World.MaxPerRequest + 1];
    private readonly ReusePool<NpgsqlBatch>?[] _worldBatches = new ReusePool<NpgsqlBatch>?[World.MaxPerRequest + 1];

    /// <summary>
    /// The log category of the outage and recovery lines. appsettings.json keeps it at Information while the default
    /// is Warning: an operator who saw the outage's warning must also see that the database is back.
    /// </summary>
    public const string LogCategory = "PlatformBenchmarks.Data";

    /// <param name="time">The clock of the circuit breaker.</param>
    /// <param name="logger">Where outages and recoveries are logged (<see cref="OutageLog"/>), under <see cref="LogCategory"/>.</param>
    /// <remarks>
    /// With <see cref="DatabaseOptions.LoopConnections"/> above 0, a read whose caller names its loop (a
    /// <see cref="DataLoop"/>) and runs on that loop's thread goes into the loop's <see cref="DatabaseLane"/>; every
    /// other read goes through the shared pool.
    /// </remarks>
    public Database(DatabaseOptions options, TimeProvider time, ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(time);
        ArgumentNullException.ThrowIfNull(logger);
        NpgsqlConnectionStringBuilder settings = options.CreateConnectionStringBuilder();
        // The slim builder carries only the basic type mappings (int4, text) we use, which trims start-up and the AOT image.
        _dataSource = new NpgsqlSlimDataSourceBuilder(settings.ConnectionString).Build();
        _breaker = new CircuitBreaker(options.FailFastPeriod, time, logger);
        _multiplexing = settings.Multiplexing;
        if (options.LoopConnections > 0)
        {
            // The loops hold their connections for the life of the process: the pool only opens them, so its size is no limit.
            // Named apart from the pool's in pg_stat_activity, so an operator sees which backends serve the loops.
            var laneSettings = new NpgsqlConnectionStringBuilder(settings.ConnectionString)
            {
                Multiplexing = false,
                MaxPoolSize = 1024,
                ApplicationName = LaneApplicationName(settings.ApplicationName),
            };
            _laneSource = new NpgsqlSlimDataSourceBuilder(laneSettings.ConnectionString).Build();
            _loopConnections = options.LoopConnections;
        }

        _worldCommands = CreateDataSourceCommands(WorldSql, 1);
        _fortuneCommands = CreateDataSourceCommands(FortuneSql, 0);
        _itemCommands = CreateDataSourceCommands(ItemsByPriceSql, 3);
        Settings = $"{settings.Host}:{settings.Port}/{settings.Database}, multiplexing {(settings.Multiplexing ? "on" : "off")}, "
            + $"pool {settings.MaxPoolSize}, auto-prepare {settings.MaxAutoPrepare}, "
            + (_laneSource is null ? "reads through the pool" : $"reads batched per loop on {_loopConnections} connection(s) each");
    }

    /// <summary>The application name of the loops' connections: the configured one (if any) followed by <c>loops</c>.</summary>
    internal static string LaneApplicationName(string? configured) => string.IsNullOrEmpty(configured) ? "loops" : configured + " loops";

    /// <summary>A one-line, password-free summary of the effective settings, for the start-up banner.</summary>
    public string Settings { get; }

    /// <summary>
    /// Start-up probe: runs the fortune and world statements once. Never throws for an unreachable or broken database;
    /// the server starts either way and the database methods recover by themselves once PostgreSQL answers.
    /// </summary>
    public async Task<DatabaseStatus> TryWarmUpAsync()
    {
        // Unreachable, reachable but wrong (a missing table: a failed statement) or not loaded (a missing row): the banner
        // says which, and the server still starts.
        if (!(await LoadFortunesAsync()).TryGetValue(out List<Fortune>? fortunes, out DataFailure? failure)
            || !(await LoadSingleWorldAsync()).TryGetValue(out World world, out failure))
        {
            return new DatabaseStatus(false, $"{Settings}: {failure.Reason}");
        }

        return new DatabaseStatus(true, $"{Settings}: {fortunes.Count} fortunes read, probe read of World row {world.Id} succeeded");
    }

    /// <summary>
    /// The lane of <paramref name="loop"/> when lanes are on, the caller runs on that loop's thread, the breaker is
    /// closed and the lane accepts the read (<see cref="DatabaseLane.Accepts"/>); else null, and the read goes through
    /// the shared pool.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private DatabaseLane? Lane(DataLoop loop)
    {
        if (_laneSource is null || !loop.IsCurrentThread || _breaker.IsOpen)
        {
            return null;
        }

        DatabaseLane?[] lanes = _lanes;
        DatabaseLane? lane = (uint)loop.Index < (uint)lanes.Length ? lanes[loop.Index] : null;
        return (lane ?? CreateLane(loop)) is { Accepts: true } accepting ? accepting : null;
    }

    /// <summary>
    /// The loop's first read: creates its lane, unless the database is closed or another thread holds the index (a
    /// second loop given the same number, whose reads then go through the pool).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private DatabaseLane? CreateLane(DataLoop loop)
    {
        lock (_laneLock)
        {
            DatabaseLane?[] lanes = _lanes;
            if (_closed)
            {
                return null;
            }

            if (loop.Index < lanes.Length && lanes[loop.Index] is { } existing)
            {
                return existing;
            }

            if (loop.Index >= lanes.Length)
            {
                Array.Resize(ref lanes, Math.Max(loop.Index + 1, lanes.Length * 2));
            }

            var lane = new DatabaseLane(this, _laneSource!, loop, _loopConnections);
            lanes[loop.Index] = lane;
            // Published whole: a loop reading the array unlocked sees either the old one or this one, filled.
            Volatile.Write(ref _lanes, lanes);
            return lane;
        }
    }

    /// <summary>How many times the database was found gone; a connection opened before the last time is not used again.</summary>
    internal int Outages => Volatile.Read(ref _outages);

    /// <summary>A lane's batch failed: the same classification, and breaker update, as any other call's failure.</summary>
    internal DataFailure? ReportLaneFailure(Exception exception) => ReportFailure(exception, probe: false);

    /// <summary>
    /// Closes the database to further reads (each gets <see cref="DataFailure.Closed"/>) and starts closing the loops'
    /// connections, which are held, not pooled: the data source would leave them open.
    /// </summary>
    private Task CloseLanesAsync()
    {
        lock (_laneLock)
        {
            _closed = true;
            return Task.WhenAll(_lanes.OfType<DatabaseLane>().Select(lane => lane.CloseAsync()));
        }
    }

    public void Dispose()
    {
        _ = CloseLanesAsync();
        _dataSource.Dispose();
        _laneSource?.Dispose();
    }

    public async ValueTask DisposeAsync()
    {
        await CloseLanesAsync();
        await _dataSource.DisposeAsync();
        if (_laneSource is not null)
        {
            await _laneSource.DisposeAsync();
        }
    }
}
