using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>
/// Reads made on a loop thread go into that loop's batches (<see cref="DatabaseLane"/>): the rows must be the table's,
/// every kind of read must share a batch with the others, and the caller must resume on its loop.
/// </summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public sealed class DatabaseLaneTests : IDisposable
{
    private readonly TestLoop _loop = new();

    public void Dispose() => _loop.Dispose();

    [Fact]
    public async Task ReadsStartedInOneTurnAreTheTablesRows()
    {
        await using Database database = Create();
        int[] table = await TestDatabase.ReadWorldTableAsync();

        World[] worlds = await _loop.RunTogetherAsync(Enumerable.Range(0, 300).Select(_ => SingleWorld(database)).ToList());

        Assert.All(worlds, world => Assert.Equal(table[world.Id], world.RandomNumber));
        Assert.True(worlds.Select(world => world.Id).Distinct().Count() > 200, "the ids should be random");
    }

    [Theory]
    [InlineData(1)]
    [InlineData(20)]
    [InlineData(500)]
    public async Task MultipleQueriesOnALoopReturnTheRequestedNumberOfRealRows(int count)
    {
        await using Database database = Create();
        int[] table = await TestDatabase.ReadWorldTableAsync();

        World[] worlds = (await _loop.RunAsync(loop => database.LoadWorldsAsync(count, loop))).Value;

        Assert.Equal(count, worlds.Length);
        Assert.All(worlds, world => Assert.Equal(table[world.Id], world.RandomNumber));
    }

    [Fact]
    public async Task EveryKindOfReadSharesABatchWithTheOthers()
    {
        await using Database database = Create();
        int[] table = await TestDatabase.ReadWorldTableAsync();

        // More statements than one batch carries: the turn's reads go out over several batches, in order, each request's
        // twenty reads whole in one of them.
        var calls = new List<Func<DataLoop, ValueTask<World[]>>>();
        for (int i = 0; i < 2000; i++)
        {
            calls.Add((i % 10) switch
            {
                5 => async loop => (await database.LoadFortunesAsync(loop)).Value.Select(fortune => new World(fortune.Id, -1)).ToArray(),
                7 => async loop => (await database.LoadWorldsAsync(20, loop)).Value,
                _ => async loop => [(await database.LoadSingleWorldAsync(loop)).Value],
            });
        }

        World[][] results = await _loop.RunTogetherAsync(calls);

        for (int i = 0; i < results.Length; i++)
        {
            if (i % 10 == 5)
            {
                // The fortunes: the 12 rows of the table, unsorted, each once.
                Assert.Equal(Enumerable.Range(1, 12), results[i].Select(row => row.Id).Order());
            }
            else
            {
                Assert.Equal(i % 10 == 7 ? 20 : 1, results[i].Length);
                Assert.All(results[i], world => Assert.Equal(table[world.Id], world.RandomNumber));
            }
        }
    }

    [Fact]
    public async Task TheCallerResumesOnItsLoopWithoutAHandOff()
    {
        await using Database database = Create();

        (int before, int after, int turns, bool context) = await _loop.RunAsync(async loop =>
        {
            int before = Environment.CurrentManagedThreadId;
            int turnsBefore = _loop.PostedCount;
            await database.LoadSingleWorldAsync(loop);
            return (before, Environment.CurrentManagedThreadId, _loop.PostedCount - turnsBefore, SynchronizationContext.Current is null);
        });

        Assert.Equal(_loop.ManagedThreadId, before);
        Assert.Equal(_loop.ManagedThreadId, after);
        // Two turns: the flush, then the reply's return to the loop, in which the continuation ran at once, not posted again.
        Assert.Equal(2, turns);
        Assert.True(context, "the caller's continuation must run with no synchronization context, as it was called");
    }

    [Fact]
    public async Task QueriesAndTheReadsOfUpdatesOnALoopComeBackToItOnce()
    {
        await using Database database = Create();
        int[] table = await TestDatabase.ReadWorldTableAsync();

        (World[] read, int readThread, int readTurns) = await _loop.RunAsync(async loop =>
        {
            int turnsBefore = _loop.PostedCount;
            World[] worlds = (await database.LoadWorldsAsync(20, loop)).Value;
            return (worlds, Environment.CurrentManagedThreadId, _loop.PostedCount - turnsBefore);
        });
        (World[] updated, int updateTurns) = await _loop.RunAsync(async loop =>
        {
            int turnsBefore = _loop.PostedCount;
            World[] worlds = (await database.UpdateWorldsAsync(20, loop)).Value;
            return (worlds, _loop.PostedCount - turnsBefore);
        });

        // The twenty reads: one flush, one return with all their rows; the update's reads the same, then its UPDATE goes
        // through the pool, where it completes.
        Assert.Equal(_loop.ManagedThreadId, readThread);
        Assert.Equal(2, readTurns);
        Assert.Equal(2, updateTurns);
        Assert.All(read, world => Assert.Equal(table[world.Id], world.RandomNumber));
        int[] after = await TestDatabase.ReadWorldTableAsync();
        Assert.Equal(20, updated.Select(world => world.Id).Distinct().Count());
        Assert.All(updated, world => Assert.Equal(after[world.Id], world.RandomNumber));
        Assert.All(updated, world => Assert.NotEqual(table[world.Id], world.RandomNumber));
    }

    [Fact]
    public async Task UpdatesStartedInOneTurnAllPersistTheirNumbers()
    {
        await using Database database = Create();

        World[][] updates = await _loop.RunTogetherAsync(Enumerable.Range(0, 40)
            .Select(_ => (Func<DataLoop, ValueTask<World[]>>)(async loop => (await database.UpdateWorldsAsync(20, loop)).Value))
            .ToList());

        // A row two requests updated holds the number of whichever committed last; every other row holds its request's.
        int[] after = await TestDatabase.ReadWorldTableAsync();
        World[] once = updates.SelectMany(rows => rows).GroupBy(world => world.Id).Where(group => group.Count() == 1).Select(group => group.Single()).ToArray();
        Assert.True(once.Length > 700, "the ids should be random");
        Assert.All(once, world => Assert.Equal(after[world.Id], world.RandomNumber));
        Assert.Equal(0, database.DeadlockRetries);
    }

    [Fact]
    public async Task AFullLaneCountsStatementsNotRequests()
    {
        await using Database database = Create(loopConnections: 1);
        (FortuneLock held, Task<DataResult<List<Fortune>>> inFlight) = await HoldTheLanesConnectionAsync(database);
        await using FortuneLock _ = held;

        // The lane holds one more batch of statements: requests of 500 rows join it while fewer statements than a batch
        // carries wait (the last of them taking it past), and the next goes through the shared pool.
        int accepted = (DatabaseLane.MaxStatements + 499) / 500;
        Task<(DataResult<World[]> Read, int Thread)[]> reads = _loop.RunTogetherAsync(Enumerable.Range(0, accepted + 1)
            .Select(_ => (Func<DataLoop, ValueTask<(DataResult<World[]>, int)>>)(async loop => (await database.LoadWorldsAsync(500, loop), Environment.CurrentManagedThreadId)))
            .ToList());
        await _loop.TurnAsync();
        await held.ReleaseAsync();

        Assert.Equal(12, (await inFlight).Value.Count);
        (DataResult<World[]> Read, int Thread)[] answers = await reads;
        Assert.All(answers, answer => Assert.Equal(500, answer.Read.Value.Length));
        Assert.Equal(Enumerable.Repeat(true, accepted).Append(false), answers.Select(answer => answer.Thread == _loop.ManagedThreadId));
    }

    [Fact]
    public async Task ACacheMissOnTheLoopIsReadInItsBatchAndResumesThere()
    {
        await using Database database = Create();
        using var cache = new WorldCache(database, new FakeTimeProvider());
        int[] table = await TestDatabase.ReadWorldTableAsync();

        // Cold: every row is a miss, read through the loop's lane one after the other.
        (World[] worlds, int after) = await _loop.RunAsync(async loop =>
            ((await cache.GetCachedWorldsAsync(5, loop)).Value, Environment.CurrentManagedThreadId));

        Assert.Equal(_loop.ManagedThreadId, after);
        Assert.All(worlds, world => Assert.Equal(table[world.Id], world.RandomNumber));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task OffTheLoopReadsGoThroughThePool(bool namingTheLoop)
    {
        await using Database database = Create();
        int[] table = await TestDatabase.ReadWorldTableAsync();
        int posted = _loop.PostedCount;

        // Naming the loop from another thread (a caller that resumed on the thread pool) changes nothing.
        World world = (await database.LoadSingleWorldAsync(namingTheLoop ? _loop.Loop : default)).Value;

        Assert.Equal(table[world.Id], world.RandomNumber);
        Assert.Equal(posted, _loop.PostedCount);
    }

    [Fact]
    public async Task EachLoopHasItsLaneAndALoopGivenATakenIndexReadsThroughThePool()
    {
        await using Database database = Create();
        int[] table = await TestDatabase.ReadWorldTableAsync();
        using var second = new TestLoop(index: 1);
        using var sameIndex = new TestLoop(index: 0);

        (World World, int Thread) first = await _loop.RunAsync(ReadAndWhere(database));
        (World World, int Thread) other = await second.RunAsync(ReadAndWhere(database));
        (World World, int Thread) taken = await sameIndex.RunAsync(ReadAndWhere(database));

        Assert.Equal(_loop.ManagedThreadId, first.Thread);
        Assert.Equal(second.ManagedThreadId, other.Thread);
        Assert.NotEqual(sameIndex.ManagedThreadId, taken.Thread);
        Assert.All([first.World, other.World, taken.World], world => Assert.Equal(table[world.Id], world.RandomNumber));
    }

    [Fact]
    public async Task AnUnreachableDatabaseFailsEveryReadOfTheBatchAndOpensTheBreaker()
    {
        var options = new DatabaseOptions { ConnectionString = "Host=127.0.0.1;Port=1;Database=none;Username=none;Password=none;Timeout=2" };
        await using var database = new Database(options, new FakeTimeProvider(), NullLogger.Instance);

        DataResult<World>[] reads = await _loop.RunTogetherAsync(
            Enumerable.Range(0, 10).Select(_ => (Func<DataLoop, ValueTask<DataResult<World>>>)database.LoadSingleWorldAsync).ToList());

        // Every one of them failed as unavailable, none was left waiting, and the breaker now answers at once.
        Assert.All(reads, read => Assert.Equal(DataOutcome.Unavailable, read.Outcome));
        DataResult<World> afterwards = await _loop.RunAsync(database.LoadSingleWorldAsync);
        Assert.Equal(DataOutcome.Unavailable, afterwards.Outcome);
        Assert.Contains("failing fast", afterwards.Failure!.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheLaneRecoversAfterAFailedBatch()
    {
        var time = new FakeTimeProvider();
        await using Database database = Create(time);
        int[] table = await TestDatabase.ReadWorldTableAsync();
        World first = (await _loop.RunAsync(database.LoadSingleWorldAsync)).Value;
        await TestDatabase.TerminateBackendsAsync(Database.LaneApplicationName("platformbenchmarks-lane-test"));

        // The loop's connection is gone: its batch fails as unavailable and the breaker opens.
        Assert.Equal(DataOutcome.Unavailable, (await _loop.RunAsync(database.LoadSingleWorldAsync)).Outcome);
        time.Advance(TimeSpan.FromSeconds(2));
        // The breaker's probe, then reads in the lane again, on a connection it opened anew.
        World probe = (await _loop.RunAsync(database.LoadSingleWorldAsync)).Value;
        World[] after = await _loop.RunTogetherAsync(Enumerable.Range(0, 20).Select(_ => SingleWorld(database)).ToList());

        Assert.Equal(table[first.Id], first.RandomNumber);
        Assert.Equal(table[probe.Id], probe.RandomNumber);
        Assert.All(after, world => Assert.Equal(table[world.Id], world.RandomNumber));
    }

    [Fact]
    public async Task AConnectionTheLoopHeldThroughAnOutageIsReopenedNotFailed()
    {
        var time = new FakeTimeProvider();
        await using Database database = Create(time);
        int[] table = await TestDatabase.ReadWorldTableAsync();
        Assert.Null((await _loop.RunAsync(database.LoadSingleWorldAsync)).Failure);
        Assert.Null((await database.LoadSingleWorldAsync()).Failure);
        await TestDatabase.TerminateBackendsAsync("platformbenchmarks-lane-test");
        await TestDatabase.TerminateBackendsAsync(Database.LaneApplicationName("platformbenchmarks-lane-test"));

        // The pool's connection finds the server gone and trips the breaker; its probe then finds it back.
        Assert.Equal(DataOutcome.Unavailable, (await database.LoadSingleWorldAsync()).Outcome);
        time.Advance(TimeSpan.FromSeconds(2));
        Assert.Null((await database.LoadSingleWorldAsync()).Failure);

        // The loop's connection died in the same outage without the loop using it: its next batch opens another.
        DataResult<World> read = await _loop.RunAsync(database.LoadSingleWorldAsync);

        Assert.Null(read.Failure);
        Assert.Equal(table[read.Value.Id], read.Value.RandomNumber);
    }

    [Fact]
    public async Task ReadsBeyondAFullLaneGoThroughThePoolAndAllGetTheirRows()
    {
        await using Database database = Create(loopConnections: 1);
        (FortuneLock held, Task<DataResult<List<Fortune>>> inFlight) = await HoldTheLanesConnectionAsync(database);
        await using FortuneLock _ = held;

        // One more batch's worth waits in the lane; the reads beyond it go to the shared pool.
        const int Beyond = 3;
        Task<(DataResult<List<Fortune>> Read, int Thread)[]> reads = _loop.RunTogetherAsync(Enumerable.Range(0, DatabaseLane.MaxStatements + Beyond)
            .Select(_ => (Func<DataLoop, ValueTask<(DataResult<List<Fortune>>, int)>>)(async loop => (await database.LoadFortunesAsync(loop), Environment.CurrentManagedThreadId)))
            .ToList());
        await _loop.TurnAsync();
        await held.ReleaseAsync();

        Assert.Equal(12, (await inFlight).Value.Count);
        (DataResult<List<Fortune>> Read, int Thread)[] answers = await reads;
        Assert.All(answers, answer => Assert.Equal(12, answer.Read.Value.Count));
        // The pool's replies resume their callers off the loop: exactly the reads the lane had no room for.
        Assert.Equal(Beyond, answers.Count(answer => answer.Thread != _loop.ManagedThreadId));
        Assert.All(answers[^Beyond..], answer => Assert.NotEqual(_loop.ManagedThreadId, answer.Thread));
    }

    [Fact]
    public async Task ClosingAnswersTheWaitingReadsAndOpensNoConnectionAfterwards()
    {
        Database database = Create(loopConnections: 1);
        Assert.Null((await _loop.RunAsync(database.LoadFortunesAsync)).Failure);
        await using FortuneLock held = await FortuneLock.TakeAsync();
        Task<DataResult<List<Fortune>>> inFlight = _loop.RunAsync(database.LoadFortunesAsync);
        await _loop.TurnAsync();
        Task<DataResult<List<Fortune>>[]> waiting = _loop.RunTogetherAsync(
            Enumerable.Range(0, 5).Select(_ => (Func<DataLoop, ValueTask<DataResult<List<Fortune>>>>)database.LoadFortunesAsync).ToList());
        await _loop.TurnAsync();

        await database.DisposeAsync();
        await held.ReleaseAsync();

        // The batch in flight was accepted before the close: it brings its rows. The reads that waited for the next
        // batch get the close as their answer, and no batch goes out on a new connection after it.
        Assert.Equal(12, (await inFlight).Value.Count);
        Assert.All(await waiting, read => Assert.Same(DataFailure.Closed, read.Failure));
    }

    [Fact]
    public async Task AReadAfterTheDatabaseClosedGetsAnAnswer()
    {
        Database database = Create();
        Assert.Null((await _loop.RunAsync(database.LoadSingleWorldAsync)).Failure);

        await database.DisposeAsync();

        // On the loop, whose lane is closed, and off it, where the pool is disposed: an answer, not the driver's exception.
        Assert.Same(DataFailure.Closed, (await _loop.RunAsync(database.LoadSingleWorldAsync)).Failure);
        Assert.Same(DataFailure.Closed, (await _loop.RunAsync(database.LoadFortunesAsync)).Failure);
        Assert.Same(DataFailure.Closed, (await database.LoadSingleWorldAsync()).Failure);
    }

    /// <summary>The loop's one connection made busy with a batch that waits for the fortune table's lock, which the caller holds.</summary>
    private async Task<(FortuneLock Held, Task<DataResult<List<Fortune>>> InFlight)> HoldTheLanesConnectionAsync(Database database)
    {
        Assert.Null((await _loop.RunAsync(database.LoadFortunesAsync)).Failure);
        FortuneLock held = await FortuneLock.TakeAsync();
        Task<DataResult<List<Fortune>>> inFlight = _loop.RunAsync(database.LoadFortunesAsync);
        await _loop.TurnAsync();
        return (held, inFlight);
    }

    private static Func<DataLoop, ValueTask<World>> SingleWorld(Database database) => async loop => (await database.LoadSingleWorldAsync(loop)).Value;

    /// <summary>A read that says on which thread its caller resumed.</summary>
    private static Func<DataLoop, ValueTask<(World, int)>> ReadAndWhere(Database database)
        => async loop => ((await database.LoadSingleWorldAsync(loop)).Value, Environment.CurrentManagedThreadId);

    private static Database Create(TimeProvider? time = null, int loopConnections = 2)
    {
        DatabaseOptions options = TestDatabase.Options(Mode.Multiplexing, "Application Name=platformbenchmarks-lane-test");
        options.LoopConnections = loopConnections;
        return new Database(options, time ?? new FakeTimeProvider(), NullLogger.Instance);
    }

    /// <summary>
    /// The fortune table locked by a transaction of its own: every read of it waits until <see cref="ReleaseAsync"/>, which
    /// holds a lane's batch in flight for as long as a test needs.
    /// </summary>
    private sealed class FortuneLock : IAsyncDisposable
    {
        private readonly NpgsqlConnection _connection;
        private readonly NpgsqlTransaction _transaction;

        private FortuneLock(NpgsqlConnection connection, NpgsqlTransaction transaction)
        {
            _connection = connection;
            _transaction = transaction;
        }

        public static async Task<FortuneLock> TakeAsync()
        {
            NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
            NpgsqlTransaction transaction = await connection.BeginTransactionAsync();
            await using var command = new NpgsqlCommand("LOCK TABLE fortune IN ACCESS EXCLUSIVE MODE", connection, transaction);
            await command.ExecuteNonQueryAsync();
            return new FortuneLock(connection, transaction);
        }

        public Task ReleaseAsync() => _transaction.RollbackAsync();

        public async ValueTask DisposeAsync()
        {
            await _transaction.DisposeAsync();
            await _connection.DisposeAsync();
        }
    }
}
