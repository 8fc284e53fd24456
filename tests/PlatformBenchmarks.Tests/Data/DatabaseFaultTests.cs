using System.Net.Sockets;
using Npgsql;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>Which failures the HTTP layer sees as "database unavailable" (503), and which of them trip the circuit breaker.</summary>
public class DatabaseFaultTests
{
    public static TheoryData<Exception> Outages => new()
    {
        new NpgsqlException("Failed to connect to 127.0.0.1:5433", new SocketException((int)SocketError.ConnectionRefused)),
        new NpgsqlException("Failed to connect to tfb-database", new SocketException((int)SocketError.HostNotFound)),
        new NpgsqlException("Exception while reading from stream", new EndOfStreamException()),
        new NpgsqlException("Exception while writing to stream", new IOException("broken pipe")),
        new NpgsqlException("Failed to connect to tfb-database:5432", new TimeoutException()),
        new PostgresException("terminating connection due to administrator command", "FATAL", "FATAL", "57P01"),
        new PostgresException("the database system is starting up", "FATAL", "FATAL", "57P03"),
        new PostgresException("sorry, too many clients already", "FATAL", "FATAL", "53300"),
        new PostgresException("password authentication failed", "FATAL", "FATAL", "28P01"),
        new PostgresException("database \"hello_world\" does not exist", "FATAL", "FATAL", "3D000"),
        new NpgsqlException("wrapped", new NpgsqlException("Exception while reading from stream", new EndOfStreamException())),
    };

    public static TheoryData<Exception> QueryErrors => new()
    {
        new PostgresException("deadlock detected", "ERROR", "ERROR", "40P01"),
        new PostgresException("relation \"world\" does not exist", "ERROR", "ERROR", "42P01"),
        new PostgresException("syntax error", "ERROR", "ERROR", "42601"),
        new NpgsqlException(
            "Multiple exceptions occurred when consuming the result set",
            new AggregateException(new PostgresException("prepared statement \"_auto0\" does not exist", "ERROR", "ERROR", "26000"))),
        new ArgumentOutOfRangeException("count"),
    };

    [Theory]
    [MemberData(nameof(Outages))]
    public void AnUnreachableDatabaseIsUnavailableAndTripsTheBreaker(Exception exception)
    {
        (string? reason, bool lostConnection) = Database.Classify(exception);

        Assert.False(string.IsNullOrWhiteSpace(reason));
        Assert.True(lostConnection);
    }

    [Theory]
    [MemberData(nameof(QueryErrors))]
    public void AFailingStatementIsNotAnOutage(Exception exception)
        => Assert.Null(Database.Classify(exception).Reason);

    [Fact]
    public void AnExhaustedPoolIsUnavailableWithoutTrippingTheBreaker()
    {
        var exception = new NpgsqlException(
            "The connection pool has been exhausted, either raise 'Max Pool Size' (currently 64) or 'Timeout' (currently 2 seconds) in your connection string.",
            new TimeoutException());

        (string? reason, bool lostConnection) = Database.Classify(exception);

        Assert.Equal("connection pool exhausted", reason);
        Assert.False(lostConnection);
    }
}
