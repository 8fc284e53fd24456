using Microsoft.Extensions.Caching.Memory;

namespace PlatformBenchmarks.Data;

/// <summary>
/// The cache of the cached-queries test (docs/tfb-rules.md §4.7): a real in-process cache library (MemoryCache) holding world
/// rows, warmed with the whole table at start-up, reading through to the database on a miss. It caches rows, never
/// responses. Only this test may use it: db, queries and updates must hit the database (§4.2-4.4).
/// </summary>
internal sealed class WorldCache : IDisposable
{
    // One boxed key per id, made once: a lookup then allocates nothing (an int key would be boxed on every call).
    private static readonly object[] s_keys = CreateKeys();

    private readonly Database _database;
    private readonly CoarseClock _clock;
    private readonly MemoryCache _cache;

    public WorldCache(Database database, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(database);
        _database = database;
        _clock = new CoarseClock(time);
        _cache = new MemoryCache(new MemoryCacheOptions { Clock = _clock });
    }

    /// <summary>Entries currently cached.</summary>
    public int Count => _cache.Count;

    /// <summary>Loads every row in one statement. Never throws: a failed warm-up leaves the rows to the read-through.</summary>
    public async Task<DatabaseStatus> TryWarmUpAsync()
    {
        if (!(await _database.LoadAllWorldsAsync()).TryGetValue(out List<World>? worlds, out DataFailure? failure))
        {
            return new DatabaseStatus(false, $"world cache not warmed, rows will be read through: {failure.Reason}");
        }

        foreach (World world in worlds)
        {
            Add(world);
        }

        return new DatabaseStatus(true, $"world cache warmed with {worlds.Count} rows");
    }

    /// <summary>
    /// <paramref name="count"/> random rows (1..500) from the cache. Completes synchronously when every row is cached;
    /// a miss loads the row from the database and caches it.
    /// </summary>
    /// <param name="loop">The loop the caller runs on, if any: on its thread a miss joins the loop's batch.</param>
    public ValueTask<DataResult<World[]>> GetCachedWorldsAsync(int count, DataLoop loop = default)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, World.MinPerRequest);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, World.MaxPerRequest);
        var worlds = new World[count];
        for (int i = 0; i < worlds.Length; i++)
        {
            int id = World.RandomId();
            if (!TryGet(id, out worlds[i]))
            {
                return ReadThroughAsync(worlds, i, id, loop);
            }
        }

        return new ValueTask<DataResult<World[]>>(new DataResult<World[]>(worlds));
    }

    public void Dispose()
    {
        _cache.Dispose();
        _clock.Dispose();
    }

    private bool TryGet(int id, out World world)
    {
        if (_cache.TryGetValue(s_keys[id], out object? value) && value is World cached)
        {
            world = cached;
            return true;
        }

        world = default;
        return false;
    }

    private void Add(World world) => _cache.Set(s_keys[world.Id], (object)world);

    private async ValueTask<DataResult<World[]>> ReadThroughAsync(World[] worlds, int index, int missingId, DataLoop loop)
    {
        if (!(await LoadAndCacheAsync(missingId, loop)).TryGetValue(out worlds[index], out DataFailure? failure))
        {
            return failure;
        }

        for (int i = index + 1; i < worlds.Length; i++)
        {
            int id = World.RandomId();
            if (!TryGet(id, out worlds[i]) && !(await LoadAndCacheAsync(id, loop)).TryGetValue(out worlds[i], out failure))
            {
                return failure;
            }
        }

        return worlds;
    }

    private async ValueTask<DataResult<World>> LoadAndCacheAsync(int id, DataLoop loop)
    {
        // Still on the loop after a miss read in its lane; after one read through the pool, elsewhere, and the database
        // sends the next miss through the pool too.
        DataResult<World> loaded = await _database.LoadWorldAsync(id, loop);
        if (loaded.TryGetValue(out World world, out _))
        {
            Add(world);
        }

        return loaded;
    }

    private static object[] CreateKeys()
    {
        object[] keys = new object[World.MaxId + 1];
        for (int id = 0; id < keys.Length; id++)
        {
            keys[id] = id;
        }

        return keys;
    }
}
