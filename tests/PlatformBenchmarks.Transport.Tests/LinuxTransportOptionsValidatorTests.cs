using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;

namespace PlatformBenchmarks.Transport.Tests;

public class LinuxTransportOptionsValidatorTests
{
    public static TheoryData<string, LinuxTransportOptions> Unusable => new()
    {
        { "Kind", new LinuxTransportOptions { Kind = (TransportKind)9 } },
        { "ThreadCount", new LinuxTransportOptions { ThreadCount = -1 } },
        { "ThreadCount", new LinuxTransportOptions { ThreadCount = LinuxTransportOptionsValidator.MaxThreadCount + 1 } },
        { "MaxReadBufferSize", new LinuxTransportOptions { MaxReadBufferSize = PinnedBlockMemoryPool.BlockSize - 1 } },
        { "MaxWriteBufferSize", new LinuxTransportOptions { MaxWriteBufferSize = 0 } },
        { "DrainTimeout", new LinuxTransportOptions { DrainTimeout = TimeSpan.Zero } },
        { "DrainTimeout", new LinuxTransportOptions { DrainTimeout = TimeSpan.FromMilliseconds(-1) } },
        { "DrainTimeout", new LinuxTransportOptions { DrainTimeout = TimeSpan.FromDays(50) } },
    };

    [Theory]
    [MemberData(nameof(Unusable))]
    public void AnUnusableValueFailsWithOneMessageNamingItsKey(string key, LinuxTransportOptions options)
    {
        ValidateOptionsResult result = new LinuxTransportOptionsValidator().Validate(Options.DefaultName, options);

        Assert.True(result.Failed);
        string failure = Assert.Single(result.Failures!);
        Assert.StartsWith($"Configuration 'Transport:{key}' must be", failure, StringComparison.Ordinal);
    }

    [Fact]
    public void TheDefaultsAndTheLimitsThemselvesAreAccepted()
    {
        var validator = new LinuxTransportOptionsValidator();

        Assert.True(validator.Validate(Options.DefaultName, new LinuxTransportOptions()).Succeeded);
        Assert.True(validator.Validate(Options.DefaultName, new LinuxTransportOptions
        {
            ThreadCount = LinuxTransportOptionsValidator.MaxThreadCount,
            MaxReadBufferSize = PinnedBlockMemoryPool.BlockSize,
            MaxWriteBufferSize = PinnedBlockMemoryPool.BlockSize,
            DrainTimeout = TimeSpan.FromTicks(1),
        }).Succeeded);
    }

    [Theory]
    [MemberData(nameof(Unusable))]
    public void TheFactoryRefusesOptionsTheValidatorRefuses(string key, LinuxTransportOptions options)
    {
        OptionsValidationException error = Assert.Throws<OptionsValidationException>(
            () => new LinuxTransportFactory(TransportKind.Epoll, options, NullLoggerFactory.Instance, new FakeTimeProvider()));

        Assert.Contains($"'Transport:{key}'", error.Message, StringComparison.Ordinal);
    }
}
