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
    /// Wait for data before taking a receive buffer from the pool (saves memory on idle connections). Kept on: turning it
    /// off was level within the noise (scenarios/results/20261124-sockets-settings-and-spinning.md, first run: 0.72
    /// against 0.71 µs of server CPU per response on pipelined plaintext, 9.16 against 9.56 µs on json).
    /// </summary>
    public bool WaitForDataBeforeAllocatingBuffer { get; set; } = true;

    /// <summary>
    /// Run socket continuations inline on the I/O thread instead of queuing them to the thread pool. On by default. It
    /// was measured only together with inline socket completions, with scenarios/settings-matrix.sh on 2 cores
    /// (scenarios/results/20261124-sockets-settings-and-spinning.md, first run): against Kestrel's defaults the two took
    /// the server CPU per response from 0.93 to 0.71 µs on pipelined plaintext and from 11.70 to 9.56 µs on json.
    /// Safe because no endpoint blocks: the database work is asynchronous.
    /// </summary>
    public bool UnsafePreferInlineScheduling { get; set; } = true;

    /// <summary>
    /// Number of I/O queues; 0 keeps Kestrel's default (the processor count, at most 16). On 2 cores, 1 queue cost a
    /// little more than the default 2 (scenarios/results/20261124-sockets-settings-and-spinning.md, first run: 0.76
    /// against 0.71 µs of server CPU per response on pipelined plaintext, 10.01 against 9.56 µs on json).
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
