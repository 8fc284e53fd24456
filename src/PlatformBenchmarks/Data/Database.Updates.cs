using System.Numerics;
using System.Runtime.CompilerServices;
using System.Text;
using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    private const int MaxUpdateAttempts = 3;

    private long _deadlockRetries;

    /// <summary>How many UPDATEs PostgreSQL aborted as deadlocked and were run again, since start (the tests expect none).</summary>
    internal long DeadlockRetries => Interlocked.Read(ref _deadlockRetries);

    // The UPDATE text for each row count, built on first use: at most 500 strings, shared by all requests.
    private static readonly string?[] s_updateSql = new string?[World.MaxPerRequest + 1];

    /// <summary>
    /// The updates test (docs/tfb-rules.md §4.4): <paramref name="count"/> distinct random rows, each read by its own statement,
    /// each given a new random number that differs from its old one, all persisted by one UPDATE before this returns.
    /// </summary>
    /// <param name="loop">
    /// The loop the caller runs on, if any: on its thread the reads join the loop's batch; the UPDATE goes through the pool.
    /// </param>
    public ValueTask<DataResult<World[]>> UpdateWorldsAsync(int count, DataLoop loop = default)
    {
        ValidateCount(count);
        return Lane(loop) is { } lane
            ? UpdateOnLoopAsync(lane, DrawDistinctSortedIds(count))
            : CallAsync(count, static (database, count) => database.ReadAndUpdateWorldsAsync(count));
    }

    /// <summary>
    /// The reads in one batch of the loop's lane, coming back to the loop once; then the UPDATE through the shared pool
    /// (docs/decisions/0018-multi-row-requests-in-the-loops-batches.md: UPDATEs in the loop's batches ran one after another on
    /// the lane's connection, waiting on the row locks of the other loop's, and cost more than the pool).
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<DataResult<World[]>> UpdateOnLoopAsync(DatabaseLane lane, World[] worlds)
    {
        DataResult<World[]> read = await lane.LoadWorldsAsync(worlds);
        if (read.Failure is not null)
        {
            return read;
        }

        AssignNewRandomNumbers(worlds);
        return await CallAsync(worlds, static (database, worlds) => database.WriteWorldsThroughPoolAsync(worlds));
    }

    /// <summary>The UPDATE of rows read on a loop.</summary>
    private async ValueTask<DataResult<World[]>> WriteWorldsThroughPoolAsync(World[] worlds)
    {
        if (_multiplexing)
        {
            return await WriteWorldsAsync(worlds, connection: null);
        }

        await using NpgsqlConnection connection = await _dataSource.OpenConnectionAsync();
        return await WriteWorldsAsync(worlds, connection);
    }

    private async ValueTask<DataResult<World[]>> ReadAndUpdateWorldsAsync(int count)
    {
        World[] worlds = DrawDistinctSortedIds(count);
        if (_multiplexing)
        {
            DataResult<World[]> read = await ReadWorldsAsync(worlds);
            if (read.Failure is not null)
            {
                return read;
            }

            AssignNewRandomNumbers(worlds);
            return await WriteWorldsAsync(worlds, connection: null);
        }
        else
        {
            // One rental for the reads and the write: queueing for the pool twice per request would double the wait.
            await using NpgsqlConnection connection = await _dataSource.OpenConnectionAsync();
            DataResult<World[]> read = await ReadWorldsInBatchAsync(worlds, connection);
            if (read.Failure is not null)
            {
                return read;
            }

            AssignNewRandomNumbers(worlds);
            return await WriteWorldsAsync(worlds, connection);
        }
    }

    /// <summary>
    /// <paramref name="count"/> distinct ids in ascending order (random numbers left 0). Distinct, so every row read is a
    /// row changed (the verifier wants more than 95% of 500 changed, §4.4); ascending, so that concurrent UPDATEs lock
    /// their rows in the same order and cannot deadlock.
    /// </summary>
    internal static World[] DrawDistinctSortedIds(int count)
    {
        ValidateCount(count);
        // One bit per id: a repeated draw is detected in O(1), and walking the bits yields the ids already sorted.
        Span<ulong> drawn = stackalloc ulong[(World.MaxId / 64) + 1];
        drawn.Clear();
        for (int drawnCount = 0; drawnCount < count;)
        {
            int id = World.RandomId();
            ref ulong word = ref drawn[id >> 6];
            ulong bit = 1UL << (id & 63);
            if ((word & bit) == 0)
            {
                word |= bit;
                drawnCount++;
            }
        }

        var worlds = new World[count];
        int next = 0;
        for (int index = 0; index < drawn.Length; index++)
        {
            for (ulong word = drawn[index]; word != 0; word &= word - 1)
            {
                worlds[next++] = new World((index << 6) + BitOperations.TrailingZeroCount(word), 0);
            }
        }

        return worlds;
    }

    /// <summary>A new random number per row, never its current one, so that every row really changes.</summary>
    internal static void AssignNewRandomNumbers(World[] worlds)
    {
        for (int i = 0; i < worlds.Length; i++)
        {
            int randomNumber;
            do
            {
                randomNumber = Random.Shared.Next(1, World.MaxRandomNumber + 1);
            }
            while (randomNumber == worlds[i].RandomNumber);

            worlds[i] = worlds[i] with { RandomNumber = randomNumber };
        }
    }

    /// <summary>The one UPDATE of <paramref name="worlds"/>; returns them, or a missing row when fewer rows changed.</summary>
    private async ValueTask<DataResult<World[]>> WriteWorldsAsync(World[] worlds, NpgsqlConnection? connection)
    {
        ReusePool<NpgsqlCommand> commands = UpdateCommands(worlds.Length);
        for (int attempt = 1; ; attempt++)
        {
            NpgsqlCommand command = commands.Rent();
            if (connection is not null)
            {
                // Without multiplexing the command is a plain one, bound to the request's connection for this use only.
                command.Connection = connection;
            }

            NpgsqlParameterCollection parameters = command.Parameters;
            for (int i = 0; i < worlds.Length; i++)
            {
                SetInt(parameters, 2 * i, worlds[i].Id);
                SetInt(parameters, (2 * i) + 1, worlds[i].RandomNumber);
            }

            int updated;
            try
            {
                updated = await command.ExecuteNonQueryAsync();
            }
            catch (PostgresException exception) when (exception.SqlState == PostgresErrorCodes.DeadlockDetected && attempt < MaxUpdateAttempts)
            {
                // Our sessions run with hash and merge joins off (DatabaseOptions.SessionOptions), so the UPDATE locks rows in
                // ascending id order and cannot deadlock with another of ours. A connection string that turns them back on, or
                // another client updating the table, can still make PostgreSQL abort this one. That UPDATE did nothing (it was a
                // transaction of its own), so run it again. The failed attempt does not count in pg_stat_statements, which
                // records completed statements only.
                Interlocked.Increment(ref _deadlockRetries);
                continue;
            }

            if (connection is not null)
            {
                command.Connection = null;
            }

            commands.Return(command);
            // The rows were read a moment ago, so only a row deleted since leaves one unchanged.
            return updated == worlds.Length
                ? worlds
                : new DataFailure(DataOutcome.MissingRow, $"the UPDATE changed {updated} world rows instead of {worlds.Length}: is the database loaded?");
        }
    }

    internal static string UpdateSql(int count) => s_updateSql[count] ??= BuildUpdateSql(count);

    /// <summary>
    /// <c>UPDATE world SET randomnumber = v.r FROM (VALUES ($1::int, $2::int), ($3, $4), …) AS v(id, r) WHERE world.id = v.id</c>:
    /// one statement for all the rows, each row with its own value (bulk updates are allowed, docs/tfb-rules.md §4.4). The text
    /// must not contain "select": the query-count check would count the updated rows as rows read too (§6).
    /// </summary>
    private static string BuildUpdateSql(int count)
    {
        var sql = new StringBuilder("UPDATE world SET randomnumber = v.r FROM (VALUES ($1::int, $2::int)", 64 + (count * 16));
        for (int i = 1; i < count; i++)
        {
            sql.Append(", ($").Append((2 * i) + 1).Append(", $").Append((2 * i) + 2).Append(')');
        }

        return sql.Append(") AS v(id, r) WHERE world.id = v.id").ToString();
    }
}
