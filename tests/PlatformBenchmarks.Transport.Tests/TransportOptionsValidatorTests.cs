using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;

namespace PlatformBenchmarks.Transport.Tests;

public class TransportOptionsValidatorTests
{
    public static TheoryData<string, TransportOptions> Unusable => new()
    {
        { "Kind", new TransportOptions { Kind = (TransportKind)9 } },
        { "ThreadCount", new TransportOptions { ThreadCount = -1 } },
        { "ThreadCount", new TransportOptions { ThreadCount = TransportOptionsValidator.MaxThreadCount + 1 } },
        { "MaxReadBufferSize", new TransportOptions { MaxReadBufferSize = PinnedBlockMemoryPool.BlockSize - 1 } },
        { "MaxWriteBufferSize", new TransportOptions { MaxWriteBufferSize = 0 } },
        { "DrainTimeout", new TransportOptions { DrainTimeout = TimeSpan.Zero } },
        { "DrainTimeout", new TransportOptions { DrainTimeout = TimeSpan.FromMilliseconds(-1) } },
        { "DrainTimeout", new TransportOptions { DrainTimeout = TimeSpan.FromDays(50) } },
    };

    [Theory]
    [MemberData(nameof(Unusable))]
    public void AnUnusableValueFailsWithOneMessageNamingItsKey(string key, TransportOptions options)
    {
        ValidateOptionsResult result = new TransportOptionsValidator().Validate(Options.DefaultName, options);

        Assert.True(result.Failed);
        string failure = Assert.Single(result.Failures!);
        Assert.StartsWith($"Configuration 'Transport:{key}' must be", failure, StringComparison.Ordinal);
    }

    [Fact]
    public void TheDefaultsAndTheLimitsThemselvesAreAccepted()
    {
        var validator = new TransportOptionsValidator();

        Assert.True(validator.Validate(Options.DefaultName, new TransportOptions()).Succeeded);
        Assert.True(validator.Validate(Options.DefaultName, new TransportOptions
        {
            ThreadCount = TransportOptionsValidator.MaxThreadCount,
            MaxReadBufferSize = PinnedBlockMemoryPool.BlockSize,
            MaxWriteBufferSize = PinnedBlockMemoryPool.BlockSize,
            DrainTimeout = TimeSpan.FromTicks(1),
        }).Succeeded);
    }

    [Theory]
    [MemberData(nameof(Unusable))]
    public void TheFactoryRefusesOptionsTheValidatorRefuses(string key, TransportOptions options)
    {
        OptionsValidationException error = Assert.Throws<OptionsValidationException>(
            () => new LinuxTransportFactory(TransportKind.Epoll, options, NullLoggerFactory.Instance, new FakeTimeProvider()));

        Assert.Contains($"'Transport:{key}'", error.Message, StringComparison.Ordinal);
    }
}
