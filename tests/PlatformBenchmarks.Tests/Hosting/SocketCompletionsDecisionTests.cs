using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>Which completion mode each transport kind gets, and that an explicit choice in the environment always wins.</summary>
public class SocketCompletionsDecisionTests
{
    [Fact]
    public void KestrelsSocketsGetInlineCompletionsWhenTheEnvironmentLeavesTheSwitchUnset()
    {
        (string? value, string description) = SocketCompletions.Decide(TransportKind.Sockets, environment: null);

        Assert.Equal("1", value);
        Assert.StartsWith("inline", description, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(TransportKind.IoUring)]
    [InlineData(TransportKind.Epoll)]
    [InlineData(TransportKind.Auto)]
    public void TheProjectsLoopsLeaveTheDatabaseSocketsToThePool(TransportKind kind)
    {
        (string? value, string description) = SocketCompletions.Decide(kind, environment: null);

        Assert.Null(value);
        Assert.StartsWith("queued to the thread pool", description, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(TransportKind.Sockets, "0", "queued to the thread pool")]
    [InlineData(TransportKind.IoUring, "1", "inline")]
    [InlineData(TransportKind.Epoll, "1", "inline")]
    public void AValueInTheEnvironmentIsKeptAndNamed(TransportKind kind, string environment, string mode)
    {
        (string? value, string description) = SocketCompletions.Decide(kind, environment);

        Assert.Null(value);
        Assert.StartsWith(mode, description, StringComparison.Ordinal);
        Assert.Contains($"{SocketCompletions.VariableName}={environment} in the environment", description, StringComparison.Ordinal);
    }
}
