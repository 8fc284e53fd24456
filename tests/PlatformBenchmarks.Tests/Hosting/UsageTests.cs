using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary><c>--help</c> and <c>-h</c> print every setting with its default and meaning, and start nothing.</summary>
public class UsageTests
{
    [Fact]
    public void TheUsageNamesEveryKeyWithItsDefaultAndMeaning()
    {
        Assert.All(SettingsCatalog.All, setting =>
        {
            Assert.Contains($"  --{setting.Key}  (default {setting.Default})", Usage.Text, StringComparison.Ordinal);
            Assert.Contains(setting.Meaning, Usage.Text, StringComparison.Ordinal);
        });
    }

    [Fact]
    public void TheUsageNamesTheTransportKinds()
    {
        Assert.Contains("Auto, IoUring, Epoll, Sockets: ", Usage.Text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("--urls", "http://127.0.0.1:0", "--help")]
    [InlineData("--help", "--urls", "http://127.0.0.1:0")]
    [InlineData("--Htp", "1", "-h")]
    public void HelpIsRecognisedAnywhereOnTheCommandLine(params string[] args)
    {
        Assert.True(ServerSettings.IsHelpRequested(args));
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("--help", "--urls", "http://127.0.0.1:0")]
    [InlineData("--Htp", "1", "-h")]
    public async Task HelpPrintsTheUsageAndExits0WithoutListening(params string[] args)
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(args);

        Assert.Equal(0, server.ExitCode);
        Assert.Equal(Usage.Text, server.Output);
        Assert.Empty(server.Error);
    }
}
