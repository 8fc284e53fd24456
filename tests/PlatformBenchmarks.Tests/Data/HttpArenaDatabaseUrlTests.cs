using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>DATABASE_URL, HttpArena's form of the database's address, and DATABASE_MAX_CONN, its pool size.</summary>
public class HttpArenaDatabaseUrlTests
{
    [Theory]
    [InlineData("postgres://bench:bench@localhost:5432/benchmark", "localhost", 5432, "benchmark", "bench", "bench")]
    [InlineData("postgresql://bench:bench@localhost/benchmark", "localhost", 5432, "benchmark", "bench", "bench")]
    [InlineData("POSTGRES://u@127.0.0.1:6543/db", "127.0.0.1", 6543, "db", "u", null)]
    [InlineData("postgres://u:p%40ss%3Aw%2Frd@db.example:5433/hello_world", "db.example", 5433, "hello_world", "u", "p@ss:w/rd")]
    [InlineData("postgres://us%20er:@[::1]:5432/d%C3%A9mo", "::1", 5432, "démo", "us er", "")]
    [InlineData("postgres://db/benchmark", "db", 5432, "benchmark", null, null)]
    public void AUrlGivesHostPortDatabaseAndCredentials(string url, string host, int port, string database, string? user, string? password)
    {
        Assert.True(HttpArenaDatabaseUrl.TryParse(url, out NpgsqlConnectionStringBuilder? settings, out string? error), error);

        Assert.Equal(host, settings.Host);
        Assert.Equal(port, settings.Port);
        Assert.Equal(database, settings.Database);
        Assert.Equal(user, settings.Username);
        Assert.Equal(password, settings.Password);
    }

    [Fact]
    public void TheKnownQueryParametersAreRead()
    {
        Assert.True(HttpArenaDatabaseUrl.TryParse("postgres://u:p@h/d?sslmode=verify-full&connect_timeout=7&application_name=pb%20arena", out NpgsqlConnectionStringBuilder? settings, out string? error), error);

        Assert.Equal(SslMode.VerifyFull, settings.SslMode);
        Assert.Equal(7, settings.Timeout);
        Assert.Equal("pb arena", settings.ApplicationName);
    }

    [Theory]
    [InlineData("", "postgres://")]
    [InlineData("Host=db;Database=x", "postgres://")]
    [InlineData("mysql://u:p@h/d", "postgres://")]
    [InlineData("http://u:p@h/d", "postgres://")]
    [InlineData("postgres://", "no host")]
    [InlineData("postgres://u:p@/d", "well-formed")]
    [InlineData("postgres://u:p@h:99999/d", "well-formed")]
    [InlineData("postgres://u:p@h:port/d", "well-formed")]
    [InlineData("postgres://u:p@h:5432", "database name")]
    [InlineData("postgres://u:p@h:5432/", "database name")]
    [InlineData("postgres://u:p@h:5432/a/b", "database name")]
    [InlineData("postgres://u:p@h/d#x", "well-formed")]
    [InlineData("postgres://u:p@h/d?sslmode=sometimes", "sslmode")]
    [InlineData("postgres://u:p@h/d?sslmode=1", "sslmode")]
    [InlineData("postgres://u:p@h/d?connect_timeout=-1", "connect_timeout")]
    [InlineData("postgres://u:p@h/d?pool_max=5", "pool_max")]
    public void ABadUrlIsRefusedWithItsReason(string url, string reason)
    {
        Assert.False(HttpArenaDatabaseUrl.TryParse(url, out NpgsqlConnectionStringBuilder? settings, out string? error));

        Assert.Null(settings);
        Assert.Contains(reason, error, StringComparison.Ordinal);
    }

    [Fact]
    public void TheServerTakesTheUrlWithItsOwnDefaultsAndTheMaxConnAsPoolSize()
    {
        DatabaseOptions options = DatabaseOptionsTests.FromSettings(("DATABASE_URL", "postgres://bench:bench@localhost:5432/benchmark"), ("DATABASE_MAX_CONN", "256"));
        NpgsqlConnectionStringBuilder settings = options.CreateConnectionStringBuilder();

        Assert.Equal("localhost", settings.Host);
        Assert.Equal("benchmark", settings.Database);
        Assert.Equal("bench", settings.Password);
        Assert.Equal(256, settings.MaxPoolSize);
        Assert.True(settings.Multiplexing);
        Assert.Equal(DatabaseOptions.DefaultMaxAutoPrepare, settings.MaxAutoPrepare);
        Assert.Equal(DatabaseOptions.SessionOptions, settings.Options);
    }

    [Theory]
    [InlineData("Database:MaxPoolSize", "12", 12)]
    [InlineData("ConnectionString", "Host=db;Database=x;Maximum Pool Size=20", 20)]
    [InlineData("ConnectionString", "Host=db;Database=x", 256)]
    public void AnExplicitPoolSizeWinsOverTheMaxConn(string key, string value, int expected)
    {
        DatabaseOptions options = DatabaseOptionsTests.FromSettings((key, value), ("DATABASE_MAX_CONN", "256"));

        Assert.Equal(expected, options.CreateConnectionStringBuilder().MaxPoolSize);
    }

    [Fact]
    public void WithoutTheMaxConnThePoolKeepsItsMeasuredDefault()
    {
        DatabaseOptions options = DatabaseOptionsTests.FromSettings(("DATABASE_URL", "postgres://u:p@h/d"));

        Assert.Equal(DatabaseOptions.DefaultMultiplexingPoolSize, options.CreateConnectionStringBuilder().MaxPoolSize);
    }

    [Theory]
    [InlineData("DATABASE_URL", "mysql://u:p@h/d", "Configuration 'DATABASE_URL' is not a PostgreSQL URL")]
    [InlineData("DATABASE_MAX_CONN", "lots", "Configuration 'DATABASE_MAX_CONN' must be an integer in 1..10000, not 'lots'.")]
    [InlineData("DATABASE_MAX_CONN", "0", "Configuration 'DATABASE_MAX_CONN' must be an integer in 1..10000, not '0'.")]
    [InlineData("DATABASE_MAX_CONN", "-3", "Configuration 'DATABASE_MAX_CONN' must be an integer in 1..10000, not '-3'.")]
    public void ABadValueStopsTheStartNamingTheKey(string key, string value, string message)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => DatabaseOptionsTests.FromSettings((key, value)));

        Assert.Contains(message, exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheUrlAndAConnectionStringTogetherAreRefused()
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => DatabaseOptionsTests.FromSettings(("DATABASE_URL", "postgres://u:p@h/d"), ("ConnectionString", "Host=db")));

        Assert.Contains("'DATABASE_URL' and 'ConnectionString' both name the database", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnEmptyUrlIsUnset()
    {
        Assert.Equal("tfb-database", DatabaseOptionsTests.FromSettings(("DATABASE_URL", "")).CreateConnectionStringBuilder().Host);
    }
}
