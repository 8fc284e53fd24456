using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// Where the runtime runs the completions of its sockets: inline on its epoll threads, or queued to the thread pool.
/// Inline only when Kestrel's socket transport carries the connections; with this project's loops the runtime's sockets
/// are the database's alone, and their completions go to the pool (docs/decisions/0002-cpu-starved-database-path.md).
/// </summary>
/// <remarks>
/// With Kestrel's sockets, inline completions together with Kestrel's inline scheduling
/// (<c>Sockets:UnsafePreferInlineScheduling</c>) keep a request on the thread that received it: received, parsed,
/// answered and sent without a hand-off. Queued to the pool, every read costs a thread switch, and under load most of a
/// response's CPU went to the hand-offs.
/// <para>
/// With the io_uring or epoll loops, an inline completion would run Npgsql's read loop and the endpoint's continuation on
/// the runtime's one epoll thread, a third kind of thread beside the loops and the pool workers that run Npgsql's
/// multiplexing writes. Each kind must be woken in turn, and a server short of CPU paid several context switches per
/// response for it.
/// </para>
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
    /// Chooses for the transport kind that runs, unless the environment already chose (set the variable to compare).
    /// Must run before the process creates its first socket: the transport's choice calls it, before Kestrel binds.
    /// </summary>
    public static void Configure(TransportKind kind)
    {
        (string? value, string description) = Decide(kind, Environment.GetEnvironmentVariable(VariableName));
        if (value is not null)
        {
            // The runtime reads the variable through Environment.GetEnvironmentVariable, which sees this process's own
            // changes, so setting it here before any socket exists has the same effect as setting it in the shell.
            Environment.SetEnvironmentVariable(VariableName, value);
        }

        Description = description;
    }

    /// <summary>The value to set (null: leave the environment alone) and the banner's words, for a kind and the variable as found.</summary>
    internal static (string? Value, string Description) Decide(TransportKind kind, string? environment) => environment switch
    {
        "1" => (null, $"inline on the runtime's epoll threads ({VariableName}=1 in the environment)"),
        not null => (null, $"queued to the thread pool ({VariableName}={environment} in the environment)"),
        null when kind == TransportKind.Sockets => ("1", "inline on the runtime's epoll threads"),
        null => (null, "queued to the thread pool (the runtime's sockets carry only the database's connections)"),
    };
}
