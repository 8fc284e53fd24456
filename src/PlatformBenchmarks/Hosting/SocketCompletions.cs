namespace PlatformBenchmarks.Hosting;

/// <summary>
/// Where the runtime runs the completions of its sockets: inline on its epoll threads, or queued to the thread pool.
/// </summary>
/// <remarks>
/// Inline completions together with Kestrel's inline scheduling (<c>Transport:UnsafePreferInlineScheduling</c>) keep a
/// request on the thread that received it: received, parsed, answered and sent without a hand-off. Queued to the pool,
/// every read costs a thread switch, and under load most of a response's CPU went to the hand-offs.
/// <para>
/// This is safe only because nothing the server runs on those threads blocks: every endpoint and the data layer are
/// asynchronous end to end, and the build bans the blocking APIs (the transport's <c>BannedSymbols.txt</c>:
/// <c>Task.Wait</c>, <c>Task.Result</c>, <c>GetResult()</c>, <c>Thread.Sleep</c>; this project's: Npgsql's synchronous
/// calls). A blocked epoll thread
/// would stall every connection it serves.
/// </para>
/// </remarks>
internal static class SocketCompletions
{
    /// <summary>The runtime's switch, read once, when the process's first socket registers with its epoll engine.</summary>
    public const string VariableName = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    /// <summary>What <see cref="Configure"/> found, for the banner.</summary>
    public static string Description { get; private set; } = "not configured";

    /// <summary>
    /// Turns inline completions on unless the environment already chose (set the variable to 0 to compare). Must run
    /// before the process creates its first socket; <c>Main</c> calls it first thing.
    /// </summary>
    public static void Configure()
    {
        string? value = Environment.GetEnvironmentVariable(VariableName);
        if (value is null)
        {
            // The runtime reads the variable through Environment.GetEnvironmentVariable, which sees this process's own
            // changes, so setting it here before any socket exists has the same effect as setting it in the shell.
            Environment.SetEnvironmentVariable(VariableName, "1");
            Description = "inline on the runtime's epoll threads";
        }
        else
        {
            Description = value == "1"
                ? $"inline on the runtime's epoll threads ({VariableName}=1 in the environment)"
                : $"queued to the thread pool ({VariableName}={value} in the environment)";
        }
    }
}
