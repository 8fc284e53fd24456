using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>Inline completions unless the environment says otherwise, and that an explicit choice there always wins.</summary>
public class SocketCompletionsDecisionTests
{
    [Fact]
    public void CompletionsAreInlineWhenTheEnvironmentLeavesTheSwitchUnset()
    {
        (string? value, string description) = SocketCompletions.Decide(environment: null);

        Assert.Equal("1", value);
        Assert.Equal("inline on the runtime's epoll threads", description);
    }

    [Theory]
    [InlineData("0", "queued to the thread pool")]
    [InlineData("false", "queued to the thread pool")]
    [InlineData("1", "inline")]
    public void AValueInTheEnvironmentIsKeptAndNamed(string environment, string mode)
    {
        (string? value, string description) = SocketCompletions.Decide(environment);

        Assert.Null(value);
        Assert.StartsWith(mode, description, StringComparison.Ordinal);
        Assert.Contains($"{SocketCompletions.VariableName}={environment} in the environment", description, StringComparison.Ordinal);
    }
}
