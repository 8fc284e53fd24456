namespace PlatformBenchmarks.Hosting;

/// <summary>
/// Where the runtime runs the completions of its sockets: inline on its epoll threads (the default here), or queued to
/// the thread pool. Inline, whichever transport carries the connections (docs/decisions/0002-cpu-starved-database-path.md).
/// </summary>
/// <remarks>
/// With Kestrel's sockets, inline completions together with Kestrel's inline scheduling
/// (<c>Sockets:UnsafePreferInlineScheduling</c>) keep a request on the thread that received it: received, parsed,
/// answered and sent without a hand-off. With the io_uring or epoll loops the runtime's sockets carry only the database's
/// connections, and inline their replies are read where they arrive: a loop's batch goes back to its loop in one hop, and
/// Npgsql's read loop completes a command without first waking a pool worker. Queued to the pool instead, /db and
/// /fortunes cost 1.2 to 1.6 times the CPU per response with CPU to spare, as TFB's and HttpArena's servers have it; a
/// server short of CPU measured the two alike.
/// <para>
/// Inline completions are safe only because nothing the server runs on those threads blocks: every endpoint and the data
/// layer are asynchronous end to end, and the build bans the blocking APIs (the transport's <c>BannedSymbols.txt</c>:
/// <c>Task.Wait</c>, <c>Task.Result</c>, <c>GetResult()</c>, <c>Thread.Sleep</c>; this project's: Npgsql's synchronous
/// calls). A blocked epoll thread would stall every connection it serves.
/// </para>
/// </remarks>
internal static class SocketCompletions
{
    /// <summary>The runtime's switch, read once, when the process's first socket registers with its epoll engine.</summary>
    public const string VariableName = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    /// <summary>What <see cref="Configure"/> found, for the banner.</summary>
    public static string Description { get; private set; } = "not configured";

    /// <summary>
    /// Turns inline completions on unless the environment already chose (set the variable to compare). Must run before
    /// the process creates its first socket: the transport's choice calls it, before Kestrel binds.
    /// </summary>
    public static void Configure()
    {
        (string? value, string description) = Decide(Environment.GetEnvironmentVariable(VariableName));
        if (value is not null)
        {
            // The runtime reads the variable through Environment.GetEnvironmentVariable, which sees this process's own
            // changes, so setting it here before any socket exists has the same effect as setting it in the shell.
            Environment.SetEnvironmentVariable(VariableName, value);
        }

        Description = description;
    }

    /// <summary>The value to set (null: leave the environment alone) and the banner's words, for the variable as found.</summary>
    internal static (string? Value, string Description) Decide(string? environment) => environment switch
    {
        "1" => (null, $"inline on the runtime's epoll threads ({VariableName}=1 in the environment)"),
        not null => (null, $"queued to the thread pool ({VariableName}={environment} in the environment)"),
        null => ("1", "inline on the runtime's epoll threads"),
    };
}
