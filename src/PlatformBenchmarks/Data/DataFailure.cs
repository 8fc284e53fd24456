namespace PlatformBenchmarks.Data;

/// <summary>
/// Why a database call brought back no rows, in the data layer's own terms: what the HTTP layer maps to a status
/// without knowing the driver. <see cref="Reason"/> is short, fit for a log line, a banner or a response body, and
/// never holds the password.
/// </summary>
internal sealed class DataFailure(DataOutcome outcome, string reason)
{
    public DataOutcome Outcome { get; } = outcome;

    public string Reason { get; } = reason;

    /// <summary>The database was closed (the server is stopping): a read made after it, or left waiting by it, gets this.</summary>
    public static DataFailure Closed { get; } = new(DataOutcome.Unavailable, "database closed: the server is stopping");

    /// <summary>The world row <paramref name="id"/> is not in the table.</summary>
    public static DataFailure MissingWorld(int id) => new(DataOutcome.MissingRow, $"the world table has no row {id}: is the database loaded?");

    public override string ToString() => $"{Outcome}: {Reason}";
}
