using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>A command line the configuration would read otherwise than written stops the server, naming the argument.</summary>
public class ServerSettingsArgumentsTests
{
    private const string Forms = "settings are --Key value or --Key=value (--help lists them).";

    /// <summary>Arguments (each followed, as the server is started in these tests, by a --ConnectionString pair) and the message.</summary>
    public static TheoryData<string[], string> MalformedCommandLines => new()
    {
        { ["--Http:MaxRequestLineSize"], "Argument '--Http:MaxRequestLineSize' has no value (--Key value or --Key=value)." },
        { ["--ConnectionString", "--urls", "http://127.0.0.1:0"], "Argument '--ConnectionString' has no value (--Key value or --Key=value)." },
        { ["--urls", "http://127.0.0.1:0", "8080"], $"Argument '8080' is not a setting: {Forms}" },
        { ["-x", "1"], $"Argument '-x' is not a setting: {Forms}" },
        { ["--", "http://127.0.0.1:0"], "Argument '--' names no key." },
        { ["--=1"], "Argument '--=1' names no key." },
    };

    [Theory]
    [MemberData(nameof(MalformedCommandLines))]
    public void AMalformedCommandLineIsRefusedNamingTheArgument(string[] args, string message)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => ServerSettings.CheckArguments([.. args, "--ConnectionString", "Host=db"]));

        Assert.Equal(message, exception.Message);
    }

    [Theory]
    [MemberData(nameof(MalformedCommandLines))]
    public async Task AMalformedCommandLineStopsTheServerWithOneLineAndExitCode2(string[] args, string message)
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(args);

        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.Equal($"PlatformBenchmarks: {message}", server.Error.TrimEnd());
    }

    [Theory]
    [InlineData("--urls", "http://127.0.0.1:0")]
    [InlineData("--urls=http://127.0.0.1:0")]
    [InlineData("--ConnectionString=")]
    [InlineData("/urls", "http://127.0.0.1:0")]
    [InlineData("--Transport:DrainTimeout", "-00:00:01")]
    [InlineData("--ConnectionString", "Host=db", "--Http:MaxRequestLineSize=100")]
    public void KeysWithTheirValuesAreAccepted(params string[] args)
    {
        ServerSettings.CheckArguments(args);
    }
}
