using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// The settings of Kestrel's socket transport (<c>Transport:Kind</c> Sockets), bound from the <c>Sockets</c> section and
/// checked by <see cref="KestrelSocketSettingsValidator"/>. They keep their names from Kestrel's
/// <see cref="SocketTransportOptions"/>, to which <see cref="ApplyTo"/> copies them.
/// </summary>
internal sealed class KestrelSocketSettings
{
    /// <summary>
    /// Wait for data before taking a receive buffer from the pool. Kept on, Kestrel's default: it spares an idle
    /// connection its buffer, and turning it off measured no better (docs/decisions/0007-runtime-and-socket-settings.md).
    /// </summary>
    public bool WaitForDataBeforeAllocatingBuffer { get; set; } = true;

    /// <summary>
    /// Run socket continuations inline on the I/O thread instead of queuing them to the thread pool. On by default: with
    /// inline socket completions it keeps a request on the thread that read it, which cost less CPU per response than
    /// Kestrel's defaults (docs/decisions/0007-runtime-and-socket-settings.md). Safe because no endpoint blocks: the
    /// database work is asynchronous.
    /// </summary>
    public bool UnsafePreferInlineScheduling { get; set; } = true;

    /// <summary>
    /// Number of I/O queues; 0 keeps Kestrel's default (the processor count, at most 16), which measured better than
    /// one queue (docs/decisions/0007-runtime-and-socket-settings.md).
    /// </summary>
    public int IOQueueCount { get; set; }

    public void ApplyTo(SocketTransportOptions options)
    {
        options.WaitForDataBeforeAllocatingBuffer = WaitForDataBeforeAllocatingBuffer;
        options.UnsafePreferInlineScheduling = UnsafePreferInlineScheduling;
        if (IOQueueCount > 0)
        {
            options.IOQueueCount = IOQueueCount;
        }
    }
}

/// <summary>Refuses Kestrel socket settings the server cannot run with, naming the key.</summary>
internal sealed class KestrelSocketSettingsValidator : IValidateOptions<KestrelSocketSettings>
{
    // Kestrel spreads connections over this many queues of its own: far more of them than processors only costs memory.
    public const int MaxIOQueueCount = 1024;

    public ValidateOptionsResult Validate(string? name, KestrelSocketSettings options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.IOQueueCount is < 0 or > MaxIOQueueCount
            ? ValidateOptionsResult.Fail($"Configuration 'Sockets:IOQueueCount' must be in 0..{MaxIOQueueCount} (0: Kestrel's default), not {options.IOQueueCount}.")
            : ValidateOptionsResult.Success;
    }
}
