using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// The rules of the <c>Transport</c> section's settings, each failure naming its key. The host runs them when it starts
/// (options pattern, ValidateOnStart); <see cref="LinuxTransportFactory"/> runs them on the options it is given.
/// </summary>
public sealed class LinuxTransportOptionsValidator : IValidateOptions<LinuxTransportOptions>
{
    public const int MaxThreadCount = 1024;

    public ValidateOptionsResult Validate(string? name, LinuxTransportOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        if (!Enum.IsDefined(options.Kind))
        {
            failures.Add($"Configuration 'Transport:Kind' must be Auto, IoUring, Epoll or Sockets, not {options.Kind}.");
        }

        if (options.ThreadCount is < 0 or > MaxThreadCount)
        {
            failures.Add($"Configuration 'Transport:ThreadCount' must be in 0..{MaxThreadCount} (0: one per processor), not {options.ThreadCount}.");
        }

        // A pipe's threshold below one block would pause it before the first receive or send had filled anything.
        RequireAtLeastOneBlock(failures, nameof(LinuxTransportOptions.MaxReadBufferSize), options.MaxReadBufferSize);
        RequireAtLeastOneBlock(failures, nameof(LinuxTransportOptions.MaxWriteBufferSize), options.MaxWriteBufferSize);

        // The drain waits with Task.WaitAsync, which takes at most uint.MaxValue - 1 milliseconds (about 49 days).
        if (options.DrainTimeout <= TimeSpan.Zero || options.DrainTimeout.TotalMilliseconds > uint.MaxValue - 1)
        {
            failures.Add($"Configuration 'Transport:DrainTimeout' must be a duration above 0 and under 49 days, not {options.DrainTimeout}.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    /// <summary>Throws <see cref="OptionsValidationException"/> with every failure when <paramref name="options"/> cannot run.</summary>
    internal static void ThrowIfInvalid(LinuxTransportOptions options)
    {
        ValidateOptionsResult result = new LinuxTransportOptionsValidator().Validate(Options.DefaultName, options);
        if (result.Failed)
        {
            throw new OptionsValidationException(Options.DefaultName, typeof(LinuxTransportOptions), result.Failures);
        }
    }

    private static void RequireAtLeastOneBlock(List<string> failures, string key, long value)
    {
        if (value < PinnedBlockMemoryPool.BlockSize)
        {
            failures.Add($"Configuration 'Transport:{key}' must be at least {PinnedBlockMemoryPool.BlockSize} (one memory block), not {value}.");
        }
    }
}
