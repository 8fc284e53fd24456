using System.Collections.Concurrent;

namespace PlatformBenchmarks.Data;

/// <summary>
/// Keeps Npgsql commands and batches for reuse: a fresh command per statement (its parameters, its internal statement
/// and parameter lists) was most of the data layer's garbage (docs/decisions/0008-measured-code-choices.md).
/// A rented item belongs to one statement at a time and goes back only after a successful execution; one that failed is
/// dropped, since its state is unknown. Unbounded: the pool never holds more items than were once in use at the same time.
/// </summary>
internal sealed class ReusePool<T>(Func<T> create)
    where T : class
{
    // ConcurrentBag: per-thread lists, so a rent and its return on the same thread take no lock and allocate nothing.
    private readonly ConcurrentBag<T> _idle = [];

    public T Rent() => _idle.TryTake(out T? item) ? item : create();

    public void Return(T item) => _idle.Add(item);
}
