using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    // Data-source commands run without an explicit connection: multiplexed, or on a connection Npgsql rents for the statement.
    private ReusePool<NpgsqlCommand> CreateDataSourceCommands(string sql, int parameterCount)
        => new(() => AddIntParameters(_dataSource.CreateCommand(sql), parameterCount));

    // Plain commands are bound to the connection a request rented, for the length of one use.
    private static ReusePool<NpgsqlCommand> CreateConnectionCommands(string sql, int parameterCount)
        => new(() => AddIntParameters(new NpgsqlCommand(sql), parameterCount));

    private static NpgsqlCommand AddIntParameters(NpgsqlCommand command, int count)
    {
        // Typed, positional ($1, $2, …) parameters: no boxing of the values, no parameter names to match.
        for (int i = 0; i < count; i++)
        {
            command.Parameters.Add(new NpgsqlParameter<int>());
        }

        return command;
    }

    private static void SetInt(NpgsqlParameterCollection parameters, int index, int value)
        => ((NpgsqlParameter<int>)parameters[index]).TypedValue = value;

    /// <summary>The world-read batches for one row count (without multiplexing), their pool created on first use.</summary>
    private ReusePool<NpgsqlBatch> WorldBatches(int count)
        => Volatile.Read(ref _worldBatches[count]) ?? CreateWorldBatches(count);

    private ReusePool<NpgsqlBatch> CreateWorldBatches(int count)
    {
        ReusePool<NpgsqlBatch> created = new(() => CreateWorldBatch(count));
        return Interlocked.CompareExchange(ref _worldBatches[count], created, null) ?? created;
    }

    /// <summary>
    /// <paramref name="count"/> world reads with error barriers, so that each statement is followed by its own Sync, as if
    /// sent alone (docs/tfb-rules.md §2 #7: one Sync for the whole batch is forbidden). Bound to a connection per use.
    /// </summary>
    private static NpgsqlBatch CreateWorldBatch(int count)
    {
        var batch = new NpgsqlBatch { EnableErrorBarriers = true };
        for (int i = 0; i < count; i++)
        {
            var command = new NpgsqlBatchCommand(WorldSql);
            command.Parameters.Add(new NpgsqlParameter<int>());
            batch.BatchCommands.Add(command);
        }

        return batch;
    }

    /// <summary>
    /// Every statement text sent to TFB's database. The room for auto-prepared statements holds them all
    /// (<see cref="DatabaseOptions.DefaultMaxAutoPrepare"/>), so that none is ever evicted.
    /// </summary>
    internal static IEnumerable<string> TfbStatementTexts()
    {
        yield return WorldSql;
        yield return AllWorldsSql;
        yield return FortuneSql;
        for (int count = World.MinPerRequest; count <= World.MaxPerRequest; count++)
        {
            yield return UpdateSql(count);
        }
    }

    /// <summary>The UPDATE commands for one row count, their pool created on first use (most of the 500 never are).</summary>
    private ReusePool<NpgsqlCommand> UpdateCommands(int count)
        => Volatile.Read(ref _updateCommands[count]) ?? CreateUpdateCommands(count);

    private ReusePool<NpgsqlCommand> CreateUpdateCommands(int count)
    {
        string sql = UpdateSql(count);
        ReusePool<NpgsqlCommand> created = _multiplexing ? CreateDataSourceCommands(sql, 2 * count) : CreateConnectionCommands(sql, 2 * count);
        return Interlocked.CompareExchange(ref _updateCommands[count], created, null) ?? created;
    }
}
