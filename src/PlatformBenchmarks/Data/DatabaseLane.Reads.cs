using System.Runtime.CompilerServices;
using System.Threading.Tasks.Sources;
using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class DatabaseLane
{
    private readonly Stack<WorldRead> _freeWorldReads = new();
    private readonly Stack<FortunesRead> _freeFortunesReads = new();
    private readonly Stack<WorldsRead> _freeWorldsReads = new();

    /// <summary>One row by id (the db test's read), in the loop's next batch.</summary>
    public ValueTask<DataResult<World>> LoadWorldAsync(int id)
    {
        WorldRead read = _freeWorldReads.TryPop(out WorldRead? free) ? free : new WorldRead(this);
        read.Start(id);
        Enqueue(read);
        return new ValueTask<DataResult<World>>(read, read.Version);
    }

    /// <summary>Every fortune row, unsorted, in the loop's next batch.</summary>
    public ValueTask<DataResult<List<Fortune>>> LoadFortunesAsync()
    {
        FortunesRead read = _freeFortunesReads.TryPop(out FortunesRead? free) ? free : new FortunesRead(this);
        read.Start();
        Enqueue(read);
        return new ValueTask<DataResult<List<Fortune>>>(read, read.Version);
    }

    /// <summary>
    /// The rows of <paramref name="worlds"/>' ids (the queries test's, or the reads before an update), one statement per
    /// row (docs/tfb-rules.md §4.3), all in the loop's next batch: the request's statements go out together, and their
    /// results come back to the loop once, with the rest of the batch's.
    /// </summary>
    public ValueTask<DataResult<World[]>> LoadWorldsAsync(World[] worlds)
    {
        WorldsRead read = _freeWorldsReads.TryPop(out WorldsRead? free) ? free : new WorldsRead(this);
        read.Start(worlds);
        Enqueue(read);
        return new ValueTask<DataResult<World[]>>(read, read.Version);
    }

    /// <summary>A read waiting in the lane or in a batch: its statements, how to read their results, and its completion.</summary>
    private abstract class LaneRead
    {
        /// <summary>How many statements it adds to a batch.</summary>
        public virtual int Statements => 1;

        public abstract void AddStatement(LaneConnection connection, NpgsqlBatchCommandCollection batch);

        /// <summary>
        /// Reads the rows of its statements, the reader positioned on the first one's result; it moves the reader on
        /// to each of its other statements' results itself.
        /// </summary>
        public abstract ValueTask ReadResultAsync(NpgsqlDataReader reader);

        public abstract void Complete();

        /// <summary>The batch failed before this read's rows were all in: the database's failure is its answer.</summary>
        public abstract void Fail(DataFailure failure);

        /// <summary>The batch failed for a reason that is no data failure (a bug): it propagates to the caller.</summary>
        public abstract void Fail(Exception exception);
    }

    /// <summary>
    /// A read whose caller awaits it as a <see cref="ValueTask{T}"/>, reused once the caller has its result. The
    /// continuation runs where the read completes, on the loop, and not through a context the caller captured: its
    /// caller ran on the loop, where it is.
    /// </summary>
    private abstract class LaneRead<T>(DatabaseLane lane) : LaneRead, IValueTaskSource<DataResult<T>>
    {
        private ManualResetValueTaskSourceCore<DataResult<T>> _core;
        private DataFailure? _failure;

        protected DatabaseLane Lane => lane;

        public short Version => _core.Version;

        protected abstract T Result { get; }

        /// <summary>Completes with <see cref="Result"/>, or with the failure its result recorded (a missing row).</summary>
        public override void Complete()
        {
            DataFailure? failure = _failure;
            _failure = null;
            _core.SetResult(failure is null ? Result : failure);
        }

        public override void Fail(DataFailure failure) => _core.SetResult(failure);

        public override void Fail(Exception exception) => _core.SetException(exception);

        public DataResult<T> GetResult(short token)
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
        protected void RecordFailure(DataFailure failure) => _failure ??= failure;

        /// <summary>Lets go of what the finished read referenced.</summary>
        protected abstract void Clear();

        /// <summary>Back to the lane's free list, on the lane's own thread.</summary>
        protected abstract void Return();
    }

    private sealed class WorldRead(DatabaseLane lane) : LaneRead<World>(lane)
    {
        private World _world;

        protected override World Result => _world;

        public void Start(int id) => _world = new World(id, 0);

        public override void AddStatement(LaneConnection connection, NpgsqlBatchCommandCollection batch)
            => batch.Add(connection.NextWorldStatement(_world.Id));

        [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
        public override async ValueTask ReadResultAsync(NpgsqlDataReader reader)
        {
            if (await reader.ReadAsync())
            {
                _world = new World(reader.GetInt32(0), reader.GetInt32(1));
            }
            else
            {
                RecordFailure(DataFailure.MissingWorld(_world.Id));
            }
        }

        protected override void Clear() => _world = default;

        protected override void Return() => Lane._freeWorldReads.Push(this);
    }

    private sealed class FortunesRead(DatabaseLane lane) : LaneRead<List<Fortune>>(lane)
    {
        private static readonly List<Fortune> s_none = [];
        private List<Fortune> _fortunes = s_none;

        protected override List<Fortune> Result => _fortunes;

        // Grows as rows arrive: the list must not be sized from the known row count (docs/tfb-rules.md §4.5).
        public void Start() => _fortunes = [];

        public override void AddStatement(LaneConnection connection, NpgsqlBatchCommandCollection batch)
            => batch.Add(connection.NextFortuneStatement());

        [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
        public override async ValueTask ReadResultAsync(NpgsqlDataReader reader)
        {
            while (await reader.ReadAsync())
            {
                _fortunes.Add(new Fortune(reader.GetInt32(0), reader.GetString(1)));
            }
        }

        protected override void Clear() => _fortunes = s_none;

        protected override void Return() => Lane._freeFortunesReads.Push(this);
    }

    private sealed class WorldsRead(DatabaseLane lane) : LaneRead<World[]>(lane)
    {
        private World[] _worlds = [];

        protected override World[] Result => _worlds;

        public override int Statements => _worlds.Length;

        public void Start(World[] worlds) => _worlds = worlds;

        public override void AddStatement(LaneConnection connection, NpgsqlBatchCommandCollection batch)
        {
            foreach (World world in _worlds)
            {
                batch.Add(connection.NextWorldStatement(world.Id));
            }
        }

        [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
        public override async ValueTask ReadResultAsync(NpgsqlDataReader reader)
        {
            World[] worlds = _worlds;
            for (int i = 0; i < worlds.Length; i++)
            {
                if (i > 0 && !await reader.NextResultAsync())
                {
                    throw new InvalidOperationException("The batch returned fewer results than it had statements.");
                }

                // A missing row fails the read, and its other statements' results are still read, so the batch goes on.
                if (await reader.ReadAsync())
                {
                    worlds[i] = new World(reader.GetInt32(0), reader.GetInt32(1));
                }
                else
                {
                    RecordFailure(DataFailure.MissingWorld(worlds[i].Id));
                }
            }
        }

        protected override void Clear() => _worlds = [];

        protected override void Return() => Lane._freeWorldsReads.Push(this);
    }
}
