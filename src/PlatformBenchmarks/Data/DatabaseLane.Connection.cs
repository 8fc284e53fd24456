using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class DatabaseLane
{
    /// <summary>
    /// One connection of the lane, its batch and the statements it reuses, and the reads of the batch in flight. A
    /// connection of its own keeps its batch and statements from one batch to the next: they never meet another
    /// connection, whose prepared statements would differ.
    /// </summary>
    private sealed class LaneConnection
    {
        private readonly List<NpgsqlBatchCommand> _worldStatements = [];
        private readonly List<NpgsqlBatchCommand> _fortuneStatements = [];
        private NpgsqlConnection? _connection;
        private int _worldsUsed;
        private int _fortunesUsed;
        private int _outagesAtOpen;

        public LaneRead[] Reads { get; } = new LaneRead[MaxStatements];

        public int Count { get; private set; }

        public bool Busy { get; set; }

        public NpgsqlBatch? Batch { get; private set; }

        /// <summary>
        /// Takes waiting reads, in order, whole, while their statements fit in <see cref="MaxStatements"/> (the first
        /// always fits), and marks the connection busy.
        /// </summary>
        /// <returns>How many statements the reads taken have.</returns>
        public int Take(Queue<LaneRead> waiting)
        {
            Busy = true;
            Count = 0;
            int statements = 0;
            while (waiting.TryPeek(out LaneRead? read) && (Count == 0 || statements + read.Statements <= MaxStatements))
            {
                Reads[Count++] = waiting.Dequeue();
                statements += read.Statements;
            }

            return statements;
        }

        /// <summary>Whether the connection is open and was opened before outage number <paramref name="outages"/>.</summary>
        public bool OpenedBefore(int outages) => _connection is not null && _outagesAtOpen != outages;

        /// <param name="outages">The database's outage count now, before the connection is opened.</param>
        public async ValueTask<NpgsqlBatch> OpenAsync(NpgsqlDataSource source, int outages)
        {
            _outagesAtOpen = outages;
            _connection = await source.OpenConnectionAsync();
            NpgsqlBatch batch = _connection.CreateBatch();
            // A Sync after each statement: each is executed as if it had been sent alone (docs/tfb-rules.md §2 #7).
            batch.EnableErrorBarriers = true;
            return Batch = batch;
        }

        /// <summary>Fills the batch with the statements of the reads taken.</summary>
        public void Prepare(NpgsqlBatch batch)
        {
            batch.BatchCommands.Clear();
            _worldsUsed = 0;
            _fortunesUsed = 0;
            for (int i = 0; i < Count; i++)
            {
                Reads[i].AddStatement(this, batch.BatchCommands);
            }
        }

        public NpgsqlBatchCommand NextWorldStatement(int id)
        {
            if (_worldsUsed == _worldStatements.Count)
            {
                var created = new NpgsqlBatchCommand(Database.WorldSql);
                created.Parameters.Add(new NpgsqlParameter<int>());
                _worldStatements.Add(created);
            }

            NpgsqlBatchCommand statement = _worldStatements[_worldsUsed++];
            ((NpgsqlParameter<int>)statement.Parameters[0]).TypedValue = id;
            return statement;
        }

        public NpgsqlBatchCommand NextFortuneStatement()
        {
            if (_fortunesUsed == _fortuneStatements.Count)
            {
                _fortuneStatements.Add(new NpgsqlBatchCommand(Database.FortuneSql));
            }

            return _fortuneStatements[_fortunesUsed++];
        }

        /// <summary>After a failure: the connection may be broken or out of step, so it goes, and the next batch opens another.</summary>
        public async ValueTask DropAsync()
        {
            NpgsqlConnection? connection = _connection;
            _connection = null;
            Batch = null;
            _worldStatements.Clear();
            _fortuneStatements.Clear();
            if (connection is not null)
            {
                try
                {
                    await connection.DisposeAsync();
                }
                catch (Exception)
                {
                    // A connection that fails to close is gone either way; the failure was reported with the batch's.
                }
            }
        }
    }
}
