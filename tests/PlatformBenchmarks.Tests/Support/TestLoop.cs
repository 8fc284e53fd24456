using System.Collections.Concurrent;
using System.IO.Pipelines;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// A loop thread for the data layer's per-loop batches, as the transport's loops behave: work scheduled on it runs on
/// its one thread, in order, in a later turn, never inline, and with no synchronization context. <see cref="Loop"/> is
/// what a connection on it hands the database; code started by <see cref="RunAsync{T}"/> runs there as a request's
/// handler does.
/// </summary>
internal sealed class TestLoop : PipeScheduler, IDisposable
{
    private readonly BlockingCollection<(Action<object?> Action, object? State)> _work = [];
    private readonly Thread _thread;
    private readonly int _index;

    /// <param name="index">The loop's number, as <see cref="DataLoop.Index"/>.</param>
    public TestLoop(int index = 0)
    {
        _index = index;
        _thread = new Thread(Run) { IsBackground = true, Name = "test-loop" };
        _thread.Start();
    }

    public int ManagedThreadId => _thread.ManagedThreadId;

    /// <summary>This loop as the database sees it.</summary>
    public DataLoop Loop => new(this, _index, _thread.ManagedThreadId);

    /// <summary>Work this loop ran, scheduled by anyone: a batch's reply, a flush, a call.</summary>
    public int PostedCount { get; private set; }

    /// <summary>Queues work for a later turn; once the loop has ended, runs it on the thread pool, as the transport's loops do.</summary>
    public override void Schedule(Action<object?> action, object? state)
    {
        try
        {
            _work.Add((action, state));
        }
        catch (InvalidOperationException)
        {
            System.Threading.ThreadPool.UnsafeQueueUserWorkItem(action, state, preferLocal: false);
        }
    }

    /// <summary>Runs <paramref name="call"/> on the loop, as a handler would, and completes with its result off the loop.</summary>
    public Task<T> RunAsync<T>(Func<DataLoop, ValueTask<T>> call)
    {
        var result = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        Schedule(_ => _ = CallAsync(call, Loop, result), null);
        return result.Task;
    }

    /// <summary>Starts every call in one turn of the loop, so that their reads share the turn's batch.</summary>
    public Task<T[]> RunTogetherAsync<T>(IReadOnlyList<Func<DataLoop, ValueTask<T>>> calls)
    {
        var results = new TaskCompletionSource<T>[calls.Count];
        for (int i = 0; i < results.Length; i++)
        {
            results[i] = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        }

        Schedule(_ =>
        {
            for (int i = 0; i < calls.Count; i++)
            {
                _ = CallAsync(calls[i], Loop, results[i]);
            }
        }, null);
        return Task.WhenAll(results.Select(result => result.Task));
    }

    /// <summary>Completes once the loop has run everything scheduled before it (and what that ran inline).</summary>
    public Task<int> TurnAsync() => RunAsync(static _ => ValueTask.FromResult(0));

    public void Dispose() => _work.CompleteAdding();

    private static async Task CallAsync<T>(Func<DataLoop, ValueTask<T>> call, DataLoop loop, TaskCompletionSource<T> result)
    {
        try
        {
            result.SetResult(await call(loop));
        }
        catch (Exception exception)
        {
            result.SetException(exception);
        }
    }

    private void Run()
    {
        foreach ((Action<object?> action, object? state) in _work.GetConsumingEnumerable())
        {
            PostedCount++;
            action(state);
        }
    }
}
