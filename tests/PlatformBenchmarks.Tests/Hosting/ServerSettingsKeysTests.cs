using Microsoft.Extensions.Configuration;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>A key the server does not read stops it, naming the key and the nearest one it does read.</summary>
public class ServerSettingsKeysTests
{
    /// <summary>Command-line arguments with an unknown key, the key, and the known key the message should name.</summary>
    public static TheoryData<string[], string, string> UnknownCommandLineKeys => new()
    {
        { ["--Htp:MaxRequestLineSize", "10"], "Htp:MaxRequestLineSize", "Http:MaxRequestLineSize" },
        { ["--Htp", "10"], "Htp", "Http" },
        { ["--Http:MaxRequestLineSise", "10"], "Http:MaxRequestLineSise", "Http:MaxRequestLineSize" },
        { ["--Http:MaxRequestLineSize:Extra", "10"], "Http:MaxRequestLineSize:Extra", "Http:MaxRequestLineSize" },
        { ["--Http:Foo", "10"], "Http:Foo", "Http:LingerTimeout" },
        { ["--Trnasport:Kind", "Epoll"], "Trnasport:Kind", "Transport:Kind" },
        { ["--Transport:MaxRequestLineSize", "10"], "Transport:MaxRequestLineSize", "Http:MaxRequestLineSize" },
        { ["--Database:ConnectionString", "Host=db"], "Database:ConnectionString", "ConnectionString" },
        { ["--ConnectionStrings", "Host=db"], "ConnectionStrings", "ConnectionString" },
        { ["--url=http://127.0.0.1:0"], "url", "urls" },
        { ["/Databse:MaxPoolSize", "3"], "Databse:MaxPoolSize", "Database:MaxPoolSize" },
    };

    [Theory]
    [MemberData(nameof(UnknownCommandLineKeys))]
    public void AnUnknownKeyOnTheCommandLineIsRefusedNamingTheNearestKnownOne(string[] args, string key, string nearest)
    {
        IConfigurationRoot configuration = new ConfigurationBuilder().AddCommandLine(args).Build();

        SettingsException exception = Assert.Throws<SettingsException>(() => ServerSettings.CheckKeys(configuration));

        Assert.Equal(Refusal(key, nearest), exception.Message);
    }

    [Theory]
    [MemberData(nameof(UnknownCommandLineKeys))]
    public async Task AnUnknownKeyOnTheCommandLineStopsTheServerWithOneLineAndExitCode2(string[] args, string key, string nearest)
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(["--urls", "http://127.0.0.1:0", .. args]);

        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.Equal($"PlatformBenchmarks: {Refusal(key, nearest)}", server.Error.TrimEnd());
    }

    [Fact]
    public void EveryUnknownKeyIsNamedOnOneLine()
    {
        IConfigurationRoot configuration = new ConfigurationBuilder().AddCommandLine(["--Htp", "1", "--Http:Foo", "2"]).Build();

        SettingsException exception = Assert.Throws<SettingsException>(() => ServerSettings.CheckKeys(configuration));

        Assert.Equal($"{Refusal("Htp", "Http")} {Refusal("Http:Foo", "Http:LingerTimeout")}", exception.Message);
    }

    /// <summary>Keys under the server's sections, and under Kestrel's, which would listen where urls never says.</summary>
    public static TheoryData<string, string> UnknownKeysUnderServerSections => new()
    {
        { "Http:MaxRequestLineSise", Refusal("Http:MaxRequestLineSise", "Http:MaxRequestLineSize") },
        { "Transport:Kinds", Refusal("Transport:Kinds", "Transport:Kind") },
        { "Sockets:IOQueues", Refusal("Sockets:IOQueues", "Sockets:IOQueueCount") },
        { "Database:ConnectionString", Refusal("Database:ConnectionString", "ConnectionString") },
        { "Kestrel:Endpoints:Http:Url", "Configuration 'Kestrel:Endpoints:Http:Url' is not a setting of this server, which reads no Kestrel keys: it listens where 'urls' says." },
    };

    [Theory]
    [MemberData(nameof(UnknownKeysUnderServerSections))]
    public void AnUnknownKeyUnderAServerSectionIsRefusedFromAnySource(string key, string message)
    {
        // Not the command line nor a file: as the environment is judged.
        IConfigurationRoot configuration = new ConfigurationBuilder().AddInMemoryCollection([new(key, "1")]).Build();

        SettingsException exception = Assert.Throws<SettingsException>(() => ServerSettings.CheckKeys(configuration));

        Assert.Equal(message, exception.Message);
    }

    [Theory]
    [MemberData(nameof(UnknownKeysUnderServerSections))]
    public async Task AnUnknownKeyUnderAServerSectionInTheEnvironmentStopsTheServer(string key, string message)
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(
            ["--urls", "http://127.0.0.1:0"],
            new Dictionary<string, string?> { [key.Replace(":", "__", StringComparison.Ordinal)] = "1" });

        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.Equal($"PlatformBenchmarks: {message}", server.Error.TrimEnd());
    }

    /// <summary>Kestrel's socket settings, under <c>Transport</c> once, under <c>Sockets</c> now; the request timeout, split in two.</summary>
    public static TheoryData<string, string> MovedKeys => new()
    {
        { "Transport:WaitForDataBeforeAllocatingBuffer", "Sockets:WaitForDataBeforeAllocatingBuffer" },
        { "Transport:UnsafePreferInlineScheduling", "Sockets:UnsafePreferInlineScheduling" },
        { "Transport:IOQueueCount", "Sockets:IOQueueCount" },
        { "transport:ioqueuecount", "Sockets:IOQueueCount" },
        { "Http:RequestTimeout", "Http:RequestHeadersTimeout" },
    };

    [Theory]
    [MemberData(nameof(MovedKeys))]
    public void AKeyThatMovedIsRefusedFromAnySourceNamingTheKeyItIsNow(string key, string now)
    {
        IConfigurationRoot commandLine = new ConfigurationBuilder().AddCommandLine([$"--{key}", "1"]).Build();
        IConfigurationRoot environment = new ConfigurationBuilder().AddInMemoryCollection([new(key, "1")]).Build();

        Assert.Equal(Moved(key, now), Assert.Throws<SettingsException>(() => ServerSettings.CheckKeys(commandLine)).Message);
        Assert.Equal(Moved(key, now), Assert.Throws<SettingsException>(() => ServerSettings.CheckKeys(environment)).Message);
    }

    [Theory]
    [MemberData(nameof(MovedKeys))]
    public async Task AKeyThatMovedStopsTheServerWithOneLineNamingTheKeyItIsNow(string key, string now)
    {
        ProcessResult fromArguments = await ServerProcess.RunToExitAsync(["--urls", "http://127.0.0.1:0", $"--{key}", "1"]);
        ProcessResult fromEnvironment = await ServerProcess.RunToExitAsync(
            ["--urls", "http://127.0.0.1:0"],
            new Dictionary<string, string?> { [key.Replace(":", "__", StringComparison.Ordinal)] = "1" });

        Assert.Equal(Program.SettingsExitCode, fromArguments.ExitCode);
        Assert.Equal($"PlatformBenchmarks: {Moved(key, now)}", fromArguments.Error.TrimEnd());
        Assert.Equal(Program.SettingsExitCode, fromEnvironment.ExitCode);
        Assert.Equal($"PlatformBenchmarks: {Moved(key, now)}", fromEnvironment.Error.TrimEnd());
    }

    [Fact]
    public void EveryMovedKeyNamesAKeyTheServerReadsAndIsNotOneItself()
    {
        Assert.All(SettingsCatalog.Moved, moved =>
        {
            Assert.Null(SettingsCatalog.Find(moved.Key));
            Assert.NotNull(SettingsCatalog.Find(moved.Value));
        });
    }

    [Theory]
    [InlineData("Htp:MaxRequestLineSize")]
    [InlineData("PATH")]
    [InlineData("HTTP_PROXY")]
    [InlineData("Http")]
    public void AKeyOutsideTheServerSectionsIsNotJudgedInTheEnvironment(string key)
    {
        IConfigurationRoot configuration = new ConfigurationBuilder().AddInMemoryCollection([new(key, "1")]).Build();

        ServerSettings.CheckKeys(configuration);
    }

    [Fact]
    public async Task AnUnrelatedVariableInTheEnvironmentLetsTheServerStart()
    {
        using System.Diagnostics.Process server = ServerProcess.Start(
            ["--urls", $"http://127.0.0.1:{ServerProcess.FreePort()}"],
            new Dictionary<string, string?> { ["Htp__MaxRequestLineSize"] = "10" });
        try
        {
            Assert.Contains("Listening:", await ServerProcess.WaitForBannerAsync(server, TimeSpan.FromMinutes(1)), StringComparison.Ordinal);
        }
        finally
        {
            server.Kill(entireProcessTree: true);
        }
    }

    [Theory]
    [InlineData("""{ "Htp": { "MaxRequestLineSize": 10 } }""", "Htp:MaxRequestLineSize", "Http:MaxRequestLineSize")]
    [InlineData("""{ "Transport": { "Knid": "Epoll" } }""", "Transport:Knid", "Transport:Kind")]
    [InlineData("""{ "Sockets": { "IOQueueCounts": 1 } }""", "Sockets:IOQueueCounts", "Sockets:IOQueueCount")]
    public void AnUnknownKeyInASettingsFileIsRefused(string json, string key, string nearest)
    {
        string file = Path.Combine(Path.GetTempPath(), $"{Guid.NewGuid():N}.json");
        File.WriteAllText(file, json);
        try
        {
            IConfigurationRoot configuration = new ConfigurationBuilder().AddJsonFile(file).Build();

            SettingsException exception = Assert.Throws<SettingsException>(() => ServerSettings.CheckKeys(configuration));

            Assert.Equal(Refusal(key, nearest), exception.Message);
        }
        finally
        {
            File.Delete(file);
        }
    }

    [Fact]
    public void EveryKnownKeyAndAnyLoggingKeyIsAccepted()
    {
        string[] args = [.. SettingsCatalog.All.SelectMany(setting => new[] { $"--{setting.Key}", "1" }), "--Logging:Console:FormatterName", "simple", "--LOGGING:LogLevel:Microsoft", "Error"];

        ServerSettings.CheckKeys(new ConfigurationBuilder().AddCommandLine(args).Build());
    }

    [Theory]
    [InlineData("Http", "Http", 0)]
    [InlineData("Htp", "Http", 1)]
    [InlineData("Htpt", "Http", 1)]
    [InlineData("Httpp", "Http", 1)]
    [InlineData("Hxtp", "Http", 1)]
    [InlineData("Trnasport", "Transport", 1)]
    [InlineData("", "urls", 4)]
    public void TheEditDistanceCountsInsertionsDeletionsSubstitutionsAndSwapsAsOne(string from, string to, int distance)
    {
        Assert.Equal(distance, ServerSettings.EditDistance(from, to));
        Assert.Equal(distance, ServerSettings.EditDistance(to, from));
    }

    private static string Moved(string key, string now) => $"Configuration '{key}' has moved: it is '{now}' now.";

    private static string Refusal(string key, string nearest)
        => $"Configuration '{key}' is not a setting of this server; the nearest is '{nearest}' (--help lists them).";
}
