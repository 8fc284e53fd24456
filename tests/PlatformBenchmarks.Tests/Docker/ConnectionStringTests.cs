using System.Data.Common;
using System.Text.RegularExpressions;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;
using YamlDotNet.RepresentationModel;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>
/// What each deployment's connection string does to the server's Npgsql settings. The server reads it, then adds its
/// own tuning for every keyword it leaves out (<see cref="DatabaseOptions.CreateConnectionStringBuilder"/>); a string
/// that sets a tuning keyword wins. So a deployment must name only where the database is and who connects, and get
/// exactly the settings the server runs with by default: with fewer auto-prepare slots than statements, for one,
/// statements evict each other and are parsed again.
/// </summary>
public partial class ConnectionStringTests
{
    private const string CrankFile = "platformbenchmarks.benchmarks.yml";

    /// <summary>Every connection string a deployment passes: the TFB images' ENV, and crank's application job.</summary>
    public static TheoryData<string> Deployments()
    {
        TheoryData<string> data = Images();
        data.Add($"crank:{CrankFile}");
        return data;
    }

    [Theory]
    [MemberData(nameof(Deployments))]
    public void TheDeploymentGetsTheServersOwnNpgsqlSettings(string deployment)
    {
        NpgsqlConnectionStringBuilder effective = Effective(ConnectionStringOf(deployment));
        NpgsqlConnectionStringBuilder serverDefault = new DatabaseOptions().CreateConnectionStringBuilder();

        Assert.Equal(SettingsBesidesTheAddress(serverDefault), SettingsBesidesTheAddress(effective));
        Assert.True(effective.Multiplexing);
        Assert.Equal(DatabaseOptions.DefaultMultiplexingPoolSize, effective.MaxPoolSize);
        Assert.Equal(DatabaseOptions.DefaultMaxAutoPrepare, effective.MaxAutoPrepare);
    }

    [Theory]
    [MemberData(nameof(Deployments))]
    public void TheDeploymentConnectsToTfbsDatabaseAsTfbsUser(string deployment)
    {
        NpgsqlConnectionStringBuilder effective = Effective(ConnectionStringOf(deployment));

        Assert.Equal("hello_world", effective.Database);
        Assert.Equal("benchmarkdbuser", effective.Username);
        Assert.Equal("benchmarkdbpass", effective.Password);
        Assert.Equal(SslMode.Disable, effective.SslMode);
    }

    /// <summary>The TFB images only: crank names its database machine through a variable of its profiles.</summary>
    public static TheoryData<string> Images() => [.. TfbSubmission.Dockerfiles().Select(d => $"docker:{d.Test}")];

    [Theory]
    [MemberData(nameof(Images))]
    public void TheTfbImagesConnectToTfbsDatabaseHost(string deployment)
    {
        NpgsqlConnectionStringBuilder effective = Effective(ConnectionStringOf(deployment));

        Assert.Equal("tfb-database", effective.Host);
        Assert.Equal(5432, effective.Port);
    }

    [Theory]
    [InlineData("Maximum Pool Size=100")]
    [InlineData("Multiplexing=false")]
    [InlineData("Max Auto Prepare=20")]
    [InlineData("No Reset On Close=false")]
    [InlineData("Options=-c enable_hashjoin=on")]
    public void AConnectionStringThatSetsTuningIsToldApart(string tuning)
    {
        string tuned = $"{new DatabaseOptions().ConnectionString};{tuning}";

        Assert.NotEqual(SettingsBesidesTheAddress(new DatabaseOptions().CreateConnectionStringBuilder()), SettingsBesidesTheAddress(Effective(tuned)));
    }

    private static NpgsqlConnectionStringBuilder Effective(string connectionString) =>
        new DatabaseOptions { ConnectionString = connectionString }.CreateConnectionStringBuilder();

    /// <summary>Every keyword Npgsql ends up with, as <c>keyword=value</c>, but for where the server is.</summary>
    private static string[] SettingsBesidesTheAddress(NpgsqlConnectionStringBuilder builder)
    {
        var canonical = new DbConnectionStringBuilder { ConnectionString = builder.ConnectionString };
        return [.. canonical.Keys.Cast<string>()
            .Where(key => !key.Equals("host", StringComparison.OrdinalIgnoreCase) && !key.Equals("port", StringComparison.OrdinalIgnoreCase))
            .Select(key => $"{key}={Convert.ToString(canonical[key], System.Globalization.CultureInfo.InvariantCulture)}")
            .Order(StringComparer.OrdinalIgnoreCase)];
    }

    internal static string ConnectionStringOf(string deployment)
    {
        string[] parts = deployment.Split(':', 2);
        return parts[0] switch
        {
            "docker" => Dockerfile.Env(TfbSubmission.Dockerfiles().Single(d => d.Test == parts[1]).Dockerfile, "ConnectionString")
                ?? throw new InvalidOperationException($"The {parts[1]} image sets no ConnectionString."),
            "crank" => CrankConnectionString(parts[1]),
            _ => throw new ArgumentException(deployment, nameof(deployment)),
        };
    }

    /// <summary>The application job's ConnectionString as crank renders it, with the job's own variables.</summary>
    private static string CrankConnectionString(string file)
    {
        var job = (YamlMappingNode)((YamlMappingNode)Yaml.Load("scenarios", file)["jobs"])["platformbenchmarks"];
        var variables = (YamlMappingNode)job["variables"];
        string template = ((YamlScalarNode)((YamlMappingNode)job["environmentVariables"])["ConnectionString"]).Value!;
        return Variable().Replace(template, m => ((YamlScalarNode)variables[m.Groups["name"].Value]).Value!);
    }

    [GeneratedRegex(@"\{\{\s*(?<name>\w+)\s*\}\}")]
    private static partial Regex Variable();
}
