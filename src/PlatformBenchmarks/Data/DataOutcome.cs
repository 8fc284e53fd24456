namespace PlatformBenchmarks.Data;

/// <summary>How a database call ended (<see cref="DataResult{T}"/>).</summary>
internal enum DataOutcome
{
    /// <summary>The call brought back its rows.</summary>
    Available,

    /// <summary>
    /// PostgreSQL cannot be reached or refuses service (down, starting up, out of connections, connection lost, pool
    /// exhausted), or the circuit breaker answers for it while it is known to be so.
    /// </summary>
    Unavailable,

    /// <summary>
    /// A row the call needs is not in the table: the database answers but is not loaded as the benchmark expects. Not an
    /// outage (the breaker counts it as an answer), and nothing is wrong with the connection.
    /// </summary>
    MissingRow,

    /// <summary>The database answered with an error (a failing statement): this call failed, the database did not.</summary>
    Failed,
}
