using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

[Trait(TestCategory.Name, TestCategory.System)]
public class PublishTests
{
    /// <summary>
    /// Each TFB dockerfile's COPY and publish steps, replayed without Docker (docker/verify-publish.sh), give a folder
    /// that the runtime stage's base image can run, with no debug symbols in it, and a server that answers /plaintext and
    /// /json on the port benchmark_config.json names. The Native AOT publish takes about 40 s on two cores.
    /// </summary>
    [Theory]
    [InlineData("jit", "in 10.0's aspnet image")]
    [InlineData("aot", "is a native executable: runtime-deps can run it")]
    public async Task TheDockerfilesPublishStepGivesAServerItsImageCanRunThatAnswers(string variant, string runtimeCheck)
    {
        ProcessResult result = await ChildProcess.RunAsync("bash", ["docker/verify-publish.sh", variant], TimeSpan.FromMinutes(10));

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains(runtimeCheck, result.Error, StringComparison.Ordinal);
        Assert.Contains("/plaintext: 200 Hello, World!", result.Error, StringComparison.Ordinal);
        Assert.Contains("/json: 200 {\"message\":\"Hello, World!\"}", result.Error, StringComparison.Ordinal);
    }

    /// <summary>
    /// The HttpArena entry's Dockerfile, replayed the same way from a context whose frameworks/platformbenchmarks/ is this
    /// repository, runtime stage's package install included: the server it publishes answers the venue's routes on a port
    /// moved from 8080, and compresses with the libdeflate the image installs.
    /// </summary>
    [Fact]
    public async Task TheHttpArenaDockerfileGivesAServerThatAnswersTheVenuesRoutes()
    {
        ProcessResult result = await ChildProcess.RunAsync("bash", ["docker/verify-publish.sh", "httparena"], TimeSpan.FromMinutes(10));

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("in 10.0's aspnet image", result.Error, StringComparison.Ordinal);
        Assert.Contains("/pipeline: 200 ok", result.Error, StringComparison.Ordinal);
        Assert.Contains("/baseline11?a=13&b=29: 200 42", result.Error, StringComparison.Ordinal);
        Assert.Matches(@"Compress: +gzip level \d+ by libdeflate \(", result.Error);
    }
}
