using System.Collections.Concurrent;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// A loop thread for the data layer's per-loop batches, as the transport's loops behave: work posted to it runs on its
/// one thread, in order, with the loop as the current context; code started by <see cref="RunAsync{T}"/> runs there with
/// no context, as a request's handler does. <see cref="CurrentLoop"/> is what the server gives the database as its loop.
/// </summary>
internal sealed class TestLoop : SynchronizationContext, IDisposable
{
    [ThreadStatic]
    private static TestLoop? t_current;

    private readonly BlockingCollection<(SendOrPostCallback Callback, object? State, bool AsHandler)> _work = [];
    private readonly Thread _thread;

    public TestLoop()
    {
        _thread = new Thread(Run) { IsBackground = true, Name = "test-loop" };
        _thread.Start();
    }

    /// <summary>The loop running on this thread, or null: the database's view of where it is called from.</summary>
    public static SynchronizationContext? CurrentLoop => t_current;

    public int ManagedThreadId => _thread.ManagedThreadId;

    /// <summary>Work this loop ran, posted by anyone: a batch's reply, a flush, a call.</summary>
    public int PostedCount { get; private set; }

    public override void Post(SendOrPostCallback d, object? state) => _work.Add((d, state, false));

    public override void Send(SendOrPostCallback d, object? state) => throw new NotSupportedException();

    /// <summary>Runs <paramref name="call"/> on the loop, as a handler would, and completes with its result off the loop.</summary>
    public Task<T> RunAsync<T>(Func<ValueTask<T>> call)
    {
        var result = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        _work.Add((_ => _ = CallAsync(call, result), null, true));
        return result.Task;
    }

    /// <summary>Starts every call in one turn of the loop, so that their reads share the turn's batch.</summary>
    public Task<T[]> RunTogetherAsync<T>(IReadOnlyList<Func<ValueTask<T>>> calls)
    {
        var results = new TaskCompletionSource<T>[calls.Count];
        for (int i = 0; i < results.Length; i++)
        {
            results[i] = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        }

        _work.Add((_ =>
        {
            for (int i = 0; i < calls.Count; i++)
            {
                _ = CallAsync(calls[i], results[i]);
            }
        }, null, true));
        return Task.WhenAll(results.Select(result => result.Task));
    }

    public void Dispose() => _work.CompleteAdding();

    private static async Task CallAsync<T>(Func<ValueTask<T>> call, TaskCompletionSource<T> result)
    {
        try
        {
            result.SetResult(await call());
        }
        catch (Exception exception)
        {
            result.SetException(exception);
        }
    }

    private void Run()
    {
        t_current = this;
        foreach ((SendOrPostCallback callback, object? state, bool asHandler) in _work.GetConsumingEnumerable())
        {
            PostedCount++;
            // A handler's call runs without a context, like a request parsed on a transport loop; posted work with it.
            SetSynchronizationContext(asHandler ? null : this);
            callback(state);
            SetSynchronizationContext(null);
        }
    }
}
