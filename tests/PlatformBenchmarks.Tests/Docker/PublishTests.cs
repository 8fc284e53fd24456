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
}
