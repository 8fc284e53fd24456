using System.Runtime.ExceptionServices;
using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    /// <summary>One random row, read whole (docs/tfb-rules.md §4.2).</summary>
    /// <param name="loop">The loop the caller runs on, if any: on its thread the read joins the loop's batch.</param>
    public ValueTask<DataResult<World>> LoadSingleWorldAsync(DataLoop loop = default) => LoadWorldAsync(World.RandomId(), loop);

    /// <summary>
    /// <paramref name="count"/> random rows (1..500), each read by its own statement (docs/tfb-rules.md §4.3): no <c>IN (…)</c>,
    /// no multi-statement text, no transaction around them.
    /// </summary>
    /// <param name="loop">The loop the caller runs on, if any: on its thread the reads join the loop's batch together.</param>
    public ValueTask<DataResult<World[]>> LoadWorldsAsync(int count, DataLoop loop = default)
    {
        ValidateCount(count);
        // On the loop the request's statements go out in the loop's batch and its results come back with the batch's, in
        // one return to the loop (docs/decisions/0018-multi-row-requests-in-the-loops-batches.md).
        return Lane(loop) is { } lane
            ? lane.LoadWorldsAsync(RandomWorlds(count))
            : CallAsync(count, static (database, count) => database.ReadWorldsAsync(RandomWorlds(count)));
    }

    /// <summary>One row by id: the db test's read, and the read-through of <see cref="WorldCache"/>.</summary>
    internal ValueTask<DataResult<World>> LoadWorldAsync(int id, DataLoop loop = default)
        => Lane(loop) is { } lane
            ? lane.LoadWorldAsync(id)
            : CallAsync(id, static (database, id) => new ValueTask<DataResult<World>>(database.ReadWorldAsync(id)));

    /// <summary>The whole table in one statement: only for warming <see cref="WorldCache"/> at start-up (docs/tfb-rules.md §4.7).</summary>
    internal ValueTask<DataResult<List<World>>> LoadAllWorldsAsync() => CallAsync(static database => database.ReadAllWorldsAsync());

    private static void ValidateCount(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, World.MinPerRequest);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, World.MaxPerRequest);
    }

    /// <summary>Rows with random ids (random numbers left 0) for <see cref="ReadWorldsAsync"/> to fill in.</summary>
    private static World[] RandomWorlds(int count)
    {
        var worlds = new World[count];
        for (int i = 0; i < worlds.Length; i++)
        {
            worlds[i] = new World(World.RandomId(), 0);
        }

        return worlds;
    }

    private async ValueTask<DataResult<List<World>>> ReadAllWorldsAsync()
    {
        using NpgsqlCommand command = _dataSource.CreateCommand(AllWorldsSql);
        await using NpgsqlDataReader reader = await command.ExecuteReaderAsync();
        var worlds = new List<World>(World.MaxId);
        while (await reader.ReadAsync())
        {
            worlds.Add(new World(reader.GetInt32(0), reader.GetInt32(1)));
        }

        return worlds;
    }

    /// <summary>
    /// Replaces each element of <paramref name="worlds"/> by the row with its id, one statement per row; returns them, or
    /// the first id that has no row.
    /// </summary>
    private ValueTask<DataResult<World[]>> ReadWorldsAsync(World[] worlds)
    {
        if (_multiplexing)
        {
            return ReadWorldsConcurrentlyAsync(worlds);
        }

        return ReadWorldsOnOwnConnectionAsync(worlds);
    }

    private async ValueTask<DataResult<World[]>> ReadWorldsOnOwnConnectionAsync(World[] worlds)
    {
        // Without multiplexing, all the reads of a request share one rented connection: queueing for the pool once per row
        // would multiply the wait.
        await using NpgsqlConnection connection = await _dataSource.OpenConnectionAsync();
        return await ReadWorldsInBatchAsync(worlds, connection);
    }

    // A Task rather than a ValueTask: the concurrent reads hold on to them before awaiting; the completing call allocates
    // the same one state machine box either way.
    private async Task<DataResult<World>> ReadWorldAsync(int id)
    {
        NpgsqlCommand command = _worldCommands.Rent();
        SetInt(command.Parameters, 0, id);
        DataResult<World> world;
        await using (NpgsqlDataReader reader = await command.ExecuteReaderAsync())
        {
            world = await reader.ReadAsync() ? new World(reader.GetInt32(0), reader.GetInt32(1)) : DataFailure.MissingWorld(id);
        }

        _worldCommands.Return(command);
        return world;
    }

    /// <summary>
    /// Multiplexing: every read is a separate command, all started before any is awaited, so Npgsql writes them to the
    /// connection together (network-level pipelining, allowed by docs/tfb-rules.md §2 #7) while each keeps its own Sync.
    /// The only read path with multiplexing: reading one row per round trip waits for each reply before the next read
    /// goes out, and measured slower in both modes (docs/decisions/0008-measured-code-choices.md).
    /// </summary>
    private async ValueTask<DataResult<World[]>> ReadWorldsConcurrentlyAsync(World[] worlds)
    {
        var reads = new Task<DataResult<World>>[worlds.Length];
        for (int i = 0; i < reads.Length; i++)
        {
            reads[i] = ReadWorldAsync(worlds[i].Id);
        }

        // Await every read even after a failure, so none is left unobserved.
        Exception? failure = null;
        DataFailure? missing = null;
        for (int i = 0; i < reads.Length; i++)
        {
            try
            {
                if (!(await reads[i]).TryGetValue(out worlds[i], out DataFailure? read))
                {
                    missing ??= read;
                }
            }
            catch (Exception exception)
            {
                failure ??= exception;
            }
        }

        if (failure is not null)
        {
            ExceptionDispatchInfo.Throw(failure);
        }

        return missing is null ? worlds : missing;
    }

    /// <summary>
    /// Without multiplexing: one batch in one round trip, with error barriers so that each statement is followed by its
    /// own Sync, as if sent alone (docs/tfb-rules.md §2 #7: one Sync for the whole batch is forbidden).
    /// </summary>
    private async ValueTask<DataResult<World[]>> ReadWorldsInBatchAsync(World[] worlds, NpgsqlConnection connection)
    {
        // Reused like the commands, on whichever connection the request rented (Npgsql 10.0.3 re-prepares its statements
        // there; 10.0.0 did not: see DatabaseReadTests).
        ReusePool<NpgsqlBatch> batches = WorldBatches(worlds.Length);
        NpgsqlBatch batch = batches.Rent();
        batch.Connection = connection;
        for (int i = 0; i < worlds.Length; i++)
        {
            SetInt(batch.BatchCommands[i].Parameters, 0, worlds[i].Id);
        }

        DataFailure? missing = null;
        // Disposing the reader consumes any results left after a missing row, so the connection goes back to the pool clean.
        await using (NpgsqlDataReader reader = await batch.ExecuteReaderAsync())
        {
            for (int i = 0; i < worlds.Length; i++)
            {
                if (i > 0 && !await reader.NextResultAsync())
                {
                    throw new InvalidOperationException($"The batch returned {i} results for {worlds.Length} statements.");
                }

                if (!await reader.ReadAsync())
                {
                    missing = DataFailure.MissingWorld(worlds[i].Id);
                    break;
                }

                worlds[i] = new World(reader.GetInt32(0), reader.GetInt32(1));
            }
        }

        batch.Connection = null;
        batches.Return(batch);
        return missing is null ? worlds : missing;
    }
}
