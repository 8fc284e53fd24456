using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// Kestrel socket transport settings, bound from the <c>Transport</c> section (checked by
/// <see cref="TransportSettingsValidator"/>).
/// </summary>
internal sealed class TransportSettings
{
    /// <summary>
    /// Wait for data before taking a receive buffer from the pool (saves memory on idle connections). Kept on: turning it
    /// off measured 6% slower on plaintext and 9% on json.
    /// </summary>
    public bool WaitForDataBeforeAllocatingBuffer { get; set; } = true;

    /// <summary>
    /// Run socket continuations inline on the I/O thread instead of queuing them to the thread pool. On by default:
    /// measured with scenarios/settings-matrix.sh on 2 cores, +11% pipelined plaintext (0.82 vs 0.94 µs of server CPU
    /// per response), json level, the database routes level within noise. Safe because no endpoint blocks: the
    /// database work is asynchronous.
    /// </summary>
    public bool UnsafePreferInlineScheduling { get; set; } = true;

    /// <summary>
    /// Number of I/O queues; 0 keeps Kestrel's default (the processor count, at most 16). On 2 cores, 1 queue measured
    /// 7% and 18% slower (plaintext, json) than the default 2, and 4 queues no better.
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
internal sealed class TransportSettingsValidator : IValidateOptions<TransportSettings>
{
    // Kestrel spreads connections over this many queues of its own: far more of them than processors only costs memory.
    public const int MaxIOQueueCount = 1024;

    public ValidateOptionsResult Validate(string? name, TransportSettings options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.IOQueueCount is < 0 or > MaxIOQueueCount
            ? ValidateOptionsResult.Fail($"Configuration 'Transport:IOQueueCount' must be in 0..{MaxIOQueueCount} (0: Kestrel's default), not {options.IOQueueCount}.")
            : ValidateOptionsResult.Success;
    }
}
