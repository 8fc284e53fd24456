using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Data;
using Npgsql;

namespace PlatformBenchmarks.Tests.Data;

public class DatabaseOptionsTests
{
    /// <summary>The options the server would run with for these settings, bound and validated as the host does.</summary>
    internal static DatabaseOptions FromSettings(params (string Key, string Value)[] settings)
    {
        IConfiguration configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(settings.Select(setting => new KeyValuePair<string, string?>(setting.Key, setting.Value)))
            .Build();
        using ServiceProvider services = new ServiceCollection().AddServerSettings(configuration).BuildServiceProvider();
        ServerSettings.ValidateOrThrow(services);
        return services.GetRequiredService<IOptions<DatabaseOptions>>().Value;
    }

    [Fact]
    public void WithoutConfigurationItIsTfbsDatabaseWithMultiplexing()
    {
        DatabaseOptions options = FromSettings();
        NpgsqlConnectionStringBuilder settings = options.CreateConnectionStringBuilder();

        Assert.Equal(DatabaseOptions.TfbConnectionString, options.ConnectionString);
        Assert.Equal("tfb-database", settings.Host);
        Assert.Equal("hello_world", settings.Database);
        Assert.Equal("benchmarkdbuser", settings.Username);
        Assert.Equal("benchmarkdbpass", settings.Password);
        Assert.True(settings.Multiplexing);
        Assert.Equal(DatabaseOptions.DefaultMultiplexingPoolSize, settings.MaxPoolSize);
        Assert.Equal(DatabaseOptions.DefaultMaxAutoPrepare, settings.MaxAutoPrepare);
        Assert.Equal(DatabaseOptions.DefaultConnectTimeoutSeconds, settings.Timeout);
        Assert.True(settings.NoResetOnClose);
        Assert.False(settings.Enlist);
        Assert.Equal(DatabaseOptions.SessionOptions, settings.Options);
        Assert.Equal(TimeSpan.FromSeconds(1), options.FailFastPeriod);
    }

    [Fact]
    public void ConfigurationKeysOverrideTheConnectionString()
    {
        DatabaseOptions options = FromSettings(
            ("ConnectionString", "Host=db;Database=x;Username=u;Password=p;Multiplexing=true;Maximum Pool Size=3"),
            ("Database:Multiplexing", "false"),
            ("Database:MaxPoolSize", "40"),
            ("Database:FailFastMilliseconds", "250"));
        NpgsqlConnectionStringBuilder settings = options.CreateConnectionStringBuilder();

        Assert.Equal("db", settings.Host);
        Assert.False(settings.Multiplexing);
        Assert.Equal(40, settings.MaxPoolSize);
        Assert.Equal(TimeSpan.FromMilliseconds(250), options.FailFastPeriod);
    }

    [Fact]
    public void KeywordsTheConnectionStringSetsAreKeptInsteadOfOurDefaults()
    {
        NpgsqlConnectionStringBuilder settings = FromSettings(
                ("ConnectionString", "Host=db;Multiplexing=false;MaxPoolSize=3;Timeout=7;Max Auto Prepare=0;No Reset On Close=false"))
            .CreateConnectionStringBuilder();

        Assert.False(settings.Multiplexing);
        Assert.Equal(3, settings.MaxPoolSize);
        Assert.Equal(7, settings.Timeout);
        Assert.Equal(0, settings.MaxAutoPrepare);
        Assert.False(settings.NoResetOnClose);
    }

    [Fact]
    public void PoolSizeAndTimeoutDefaultsFollowTheMode()
    {
        NpgsqlConnectionStringBuilder settings = FromSettings(("Database:Multiplexing", "false")).CreateConnectionStringBuilder();

        Assert.False(settings.Multiplexing);
        Assert.Equal(DatabaseOptions.DefaultPooledPoolSize, settings.MaxPoolSize);
        Assert.Equal(DatabaseOptions.DefaultPooledTimeoutSeconds, settings.Timeout);
    }

    [Theory]
    [InlineData("Database:Multiplexing", "yes")]
    [InlineData("Database:MaxPoolSize", "0")]
    [InlineData("Database:MaxPoolSize", "many")]
    [InlineData("Database:FailFastMilliseconds", "-1")]
    [InlineData("Database:LoopConnections", "-1")]
    [InlineData("Database:LoopConnections", "65")]
    public void InvalidValuesAreRejectedAtStartUpNamingTheKey(string key, string value)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => FromSettings((key, value)));

        Assert.Contains(key, exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SessionOptionsAreAddedToTheConnectionStringsOwnOptions()
    {
        NpgsqlConnectionStringBuilder settings = FromSettings(("ConnectionString", "Host=db;Options=-c statement_timeout=5000")).CreateConnectionStringBuilder();

        Assert.Equal("-c statement_timeout=5000 " + DatabaseOptions.SessionOptions, settings.Options);
    }

    [Fact]
    public void AConnectionStringThatSetsEnableHashjoinKeepsIt()
    {
        NpgsqlConnectionStringBuilder settings = FromSettings(("ConnectionString", "Host=db;Options=-c enable_hashjoin=on")).CreateConnectionStringBuilder();

        Assert.Equal("-c enable_hashjoin=on", settings.Options);
    }
}
