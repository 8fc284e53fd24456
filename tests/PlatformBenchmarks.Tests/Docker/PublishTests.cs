using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

[Trait(TestCategory.Name, TestCategory.System)]
public class PublishTests
{
    /// <summary>
    /// The JIT dockerfile's COPY and publish steps, replayed without Docker, give a server that answers /plaintext and
    /// /json (docker/verify-publish.sh). The Native AOT variant takes minutes and needs the NativeAOT runtime pack
    /// from the package feed: run `docker/verify-publish.sh aot` by hand.
    /// </summary>
    [Fact]
    public async Task TheJitDockerfilesPublishStepGivesAServerThatAnswers()
    {
        ProcessResult result = await ChildProcess.RunAsync("bash", ["docker/verify-publish.sh", "jit"], TimeSpan.FromMinutes(10));

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("/plaintext: 200 Hello, World!", result.Error, StringComparison.Ordinal);
        Assert.Contains("/json: 200 {\"message\":\"Hello, World!\"}", result.Error, StringComparison.Ordinal);
    }
}
