namespace PlatformBenchmarks.Data;

/// <summary>
/// The one exception the database methods throw when PostgreSQL cannot be reached or refuses service (down, starting up,
/// out of connections, connection lost, pool exhausted). The HTTP layer maps it to 503. Any other exception is a bug
/// or a genuine query failure. The message is a short reason, fit for a log line or a banner.
/// </summary>
internal sealed class DatabaseUnavailableException : Exception
{
    public DatabaseUnavailableException()
        : base("The database is unavailable.")
    {
    }

    public DatabaseUnavailableException(string message)
        : base(message)
    {
    }

    public DatabaseUnavailableException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}
