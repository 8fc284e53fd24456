using System.Runtime.CompilerServices;
using System.Threading.Tasks.Sources;
using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class DatabaseLane
{
    private readonly Stack<WorldRead> _freeWorldReads = new();
    private readonly Stack<FortunesRead> _freeFortunesReads = new();

    /// <summary>One row by id (the db test's read), in the loop's next batch.</summary>
    public ValueTask<World> LoadWorldAsync(int id)
    {
        WorldRead read = _freeWorldReads.TryPop(out WorldRead? free) ? free : new WorldRead(this);
        read.Start(id);
        Enqueue(read);
        return new ValueTask<World>(read, read.Version);
    }

    /// <summary>Every fortune row, unsorted, in the loop's next batch.</summary>
    public ValueTask<List<Fortune>> LoadFortunesAsync()
    {
        FortunesRead read = _freeFortunesReads.TryPop(out FortunesRead? free) ? free : new FortunesRead(this);
        read.Start();
        Enqueue(read);
        return new ValueTask<List<Fortune>>(read, read.Version);
    }

    /// <summary>A read waiting in the lane or in a batch: its statements, how to read their results, and its completion.</summary>
    private abstract class LaneRead
    {
        public abstract int StatementCount { get; }

        public abstract void AddStatements(LaneConnection connection, NpgsqlBatchCommandCollection batch);

        /// <summary>Reads the rows of its statement number <paramref name="statement"/>, the reader positioned on its result.</summary>
        public abstract ValueTask ReadResultAsync(NpgsqlDataReader reader, int statement);

        public abstract void Complete();

        public abstract void Fail(Exception exception);
    }

    /// <summary>
    /// A read whose caller awaits it as a <see cref="ValueTask{T}"/>, reused once the caller has its result. The
    /// continuation runs where the read completes, on the loop, and not through the caller's context: the loop is the
    /// only context the caller could have had.
    /// </summary>
    private abstract class LaneRead<T>(DatabaseLane lane) : LaneRead, IValueTaskSource<T>
    {
        private ManualResetValueTaskSourceCore<T> _core;
        private Exception? _failure;

        protected DatabaseLane Lane => lane;

        public short Version => _core.Version;

        protected abstract T Result { get; }

        /// <summary>Completes with <see cref="Result"/>, or with the failure a result recorded (a missing row).</summary>
        public override void Complete()
        {
            if (_failure is { } failure)
            {
                _failure = null;
                _core.SetException(failure);
            }
            else
            {
                _core.SetResult(Result);
            }
        }

        public override void Fail(Exception exception) => _core.SetException(exception);

        public T GetResult(short token)
        {
            try
            {
                return _core.GetResult(token);
            }
            finally
            {
                _core.Reset();
                Clear();
                if (lane.OnOwnThread)
                {
                    Return();
                }
            }
        }

        public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

        public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
            => _core.OnCompleted(continuation, state, token, flags & ~ValueTaskSourceOnCompletedFlags.UseSchedulingContext);

        /// <summary>Records a failure that belongs to this read alone; the batch goes on.</summary>
        protected void RecordFailure(Exception exception) => _failure ??= exception;

        /// <summary>Lets go of what the finished read referenced.</summary>
        protected abstract void Clear();

        /// <summary>Back to the lane's free list, on the lane's own thread.</summary>
        protected abstract void Return();
    }

    private sealed class WorldRead(DatabaseLane lane) : LaneRead<World>(lane)
    {
        private World _world;

        public override int StatementCount => 1;

        protected override World Result => _world;

        public void Start(int id) => _world = new World(id, 0);

        public override void AddStatements(LaneConnection connection, NpgsqlBatchCommandCollection batch)
            => batch.Add(connection.NextWorldStatement(_world.Id));

        [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
        public override async ValueTask ReadResultAsync(NpgsqlDataReader reader, int statement)
        {
            if (await reader.ReadAsync())
            {
                _world = new World(reader.GetInt32(0), reader.GetInt32(1));
            }
            else
            {
                RecordFailure(Database.MissingWorld(_world.Id));
            }
        }

        protected override void Clear() => _world = default;

        protected override void Return() => Lane._freeWorldReads.Push(this);
    }

    private sealed class FortunesRead(DatabaseLane lane) : LaneRead<List<Fortune>>(lane)
    {
        private static readonly List<Fortune> s_none = [];
        private List<Fortune> _fortunes = s_none;

        public override int StatementCount => 1;

        protected override List<Fortune> Result => _fortunes;

        // Grows as rows arrive: the list must not be sized from the known row count (docs/tfb-rules.md §4.5).
        public void Start() => _fortunes = [];

        public override void AddStatements(LaneConnection connection, NpgsqlBatchCommandCollection batch)
            => batch.Add(connection.NextFortuneStatement());

        [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
        public override async ValueTask ReadResultAsync(NpgsqlDataReader reader, int statement)
        {
            while (await reader.ReadAsync())
            {
                _fortunes.Add(new Fortune(reader.GetInt32(0), reader.GetString(1)));
            }
        }

        protected override void Clear() => _fortunes = s_none;

        protected override void Return() => Lane._freeFortunesReads.Push(this);
    }
}
