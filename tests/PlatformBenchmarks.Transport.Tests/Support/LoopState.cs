namespace PlatformBenchmarks.Transport.Tests.Support;

internal static class LoopState
{
    /// <summary>
    /// Waits for a loop thread to make <paramref name="condition"/> true. It waits for the loop to act, not for time to
    /// pass: no transport clock in these tests moves unless the test advances it. The deadline only fails the test.
    /// </summary>
    public static async Task WaitUntilAsync(Func<bool> condition)
    {
        using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        while (!condition())
        {
            await Task.Delay(5, deadline.Token);
        }
    }
}
