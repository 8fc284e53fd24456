using System.Runtime.ExceptionServices;
using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    /// <summary>One random row, read whole (tfb-rules.md §4.2).</summary>
    public async ValueTask<World> LoadSingleWorldAsync()
    {
        var probe = _breaker.Enter();
        try
        {
            var world = await ReadWorldAsync(World.RandomId(), connection: null);
            _breaker.Succeeded(probe);
            return world;
        }
        catch (Exception exception) when (IsUnavailability(exception, probe, out var unavailable))
        {
            throw unavailable;
        }
    }

    /// <summary>
    /// <paramref name="count"/> random rows (1..500), each read by its own statement (tfb-rules.md §4.3): no <c>IN (…)</c>,
    /// no multi-statement text, no transaction around them.
    /// </summary>
    public async ValueTask<World[]> LoadWorldsAsync(int count)
    {
        ValidateCount(count);
        var probe = _breaker.Enter();
        try
        {
            var worlds = new World[count];
            for (var i = 0; i < worlds.Length; i++)
            {
                worlds[i] = new World(World.RandomId(), 0);
            }

            await ReadWorldsAsync(worlds, connection: null);
            _breaker.Succeeded(probe);
            return worlds;
        }
        catch (Exception exception) when (IsUnavailability(exception, probe, out var unavailable))
        {
            throw unavailable;
        }
    }

    /// <summary>One row by id: the read-through of <see cref="WorldCache"/>.</summary>
    internal async ValueTask<World> LoadWorldAsync(int id)
    {
        var probe = _breaker.Enter();
        try
        {
            var world = await ReadWorldAsync(id, connection: null);
            _breaker.Succeeded(probe);
            return world;
        }
        catch (Exception exception) when (IsUnavailability(exception, probe, out var unavailable))
        {
            throw unavailable;
        }
    }

    /// <summary>The whole table in one statement: only for warming <see cref="WorldCache"/> at start-up (tfb-rules.md §4.7).</summary>
    internal async ValueTask<List<World>> LoadAllWorldsAsync()
    {
        var probe = _breaker.Enter();
        try
        {
            using var command = _dataSource.CreateCommand(AllWorldsSql);
            await using var reader = await command.ExecuteReaderAsync();
            var worlds = new List<World>(World.MaxId);
            while (await reader.ReadAsync())
            {
                worlds.Add(new World(reader.GetInt32(0), reader.GetInt32(1)));
            }

            _breaker.Succeeded(probe);
            return worlds;
        }
        catch (Exception exception) when (IsUnavailability(exception, probe, out var unavailable))
        {
            throw unavailable;
        }
    }

    private static void ValidateCount(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, QueryCount.Min);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, QueryCount.Max);
    }

    /// <summary>Replaces each element of <paramref name="worlds"/> by the row with its id, one statement per row.</summary>
    private ValueTask ReadWorldsAsync(World[] worlds, NpgsqlConnection? connection)
    {
        if (!_pipelineReads)
        {
            return ReadWorldsSequentiallyAsync(worlds, connection);
        }

        return _multiplexing ? ReadWorldsConcurrentlyAsync(worlds) : ReadWorldsInBatchAsync(worlds, connection);
    }

    // A Task rather than a ValueTask: the concurrent reads hold on to them before awaiting; the completing call allocates
    // the same one state machine box either way.
    private async Task<World> ReadWorldAsync(int id, NpgsqlConnection? connection)
    {
        using var command = connection is null ? _dataSource.CreateCommand(WorldSql) : new NpgsqlCommand(WorldSql, connection);
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = id });
        await using var reader = await command.ExecuteReaderAsync();
        return await reader.ReadAsync() ? new World(reader.GetInt32(0), reader.GetInt32(1)) : throw MissingWorld(id);
    }

    /// <summary>
    /// Multiplexing: every read is a separate command, all started before any is awaited, so Npgsql writes them to the
    /// connection together (network-level pipelining, allowed by tfb-rules.md §2 #7) while each keeps its own Sync.
    /// </summary>
    private async ValueTask ReadWorldsConcurrentlyAsync(World[] worlds)
    {
        var reads = new Task<World>[worlds.Length];
        for (var i = 0; i < reads.Length; i++)
        {
            reads[i] = ReadWorldAsync(worlds[i].Id, connection: null);
        }

        // Await every read even after a failure, so none is left unobserved.
        Exception? failure = null;
        for (var i = 0; i < reads.Length; i++)
        {
            try
            {
                worlds[i] = await reads[i];
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
    }

    /// <summary>
    /// Without multiplexing: one batch in one round trip, with error barriers so that each statement is followed by its
    /// own Sync, as if sent alone (tfb-rules.md §2 #7: one Sync for the whole batch is forbidden).
    /// </summary>
    private async ValueTask ReadWorldsInBatchAsync(World[] worlds, NpgsqlConnection? connection)
    {
        await using var batch = connection is null ? _dataSource.CreateBatch() : connection.CreateBatch();
        batch.EnableErrorBarriers = true;
        foreach (var world in worlds)
        {
            var command = new NpgsqlBatchCommand(WorldSql);
            command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = world.Id });
            batch.BatchCommands.Add(command);
        }

        await using var reader = await batch.ExecuteReaderAsync();
        for (var i = 0; i < worlds.Length; i++)
        {
            if (i > 0 && !await reader.NextResultAsync())
            {
                throw new InvalidOperationException($"The batch returned {i} results for {worlds.Length} statements.");
            }

            var id = worlds[i].Id;
            worlds[i] = await reader.ReadAsync() ? new World(reader.GetInt32(0), reader.GetInt32(1)) : throw MissingWorld(id);
        }
    }

    /// <summary>One round trip per row: the conservative reading of the rules, and the baseline to measure against.</summary>
    private async ValueTask ReadWorldsSequentiallyAsync(World[] worlds, NpgsqlConnection? connection)
    {
        if (connection is null && !_multiplexing)
        {
            // Rent one connection for all the rows rather than queueing for the pool once per row.
            await using var owned = await _dataSource.OpenConnectionAsync();
            await ReadWorldsSequentiallyAsync(worlds, owned);
            return;
        }

        for (var i = 0; i < worlds.Length; i++)
        {
            worlds[i] = await ReadWorldAsync(worlds[i].Id, connection);
        }
    }

    private static InvalidOperationException MissingWorld(int id)
        => new($"The world table has no row {id}: is the database loaded? (scripts/db.sh start)");
}
