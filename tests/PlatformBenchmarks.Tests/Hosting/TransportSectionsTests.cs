using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Transport;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>
/// The two transport sections as the host binds them: <c>Transport</c> (the kind, and this project's loops) and
/// <c>Sockets</c> (Kestrel's socket transport).
/// </summary>
public class TransportSectionsTests
{
    [Theory]
    [InlineData("Transport:Kind", "Fast")]
    [InlineData("Transport:Kind", "9")]
    [InlineData("Transport:ThreadCount", "-1")]
    [InlineData("Transport:ThreadCount", "1025")]
    [InlineData("Transport:ThreadCount", "many")]
    [InlineData("Transport:MaxReadBufferSize", "0")]
    [InlineData("Transport:MaxWriteBufferSize", "4095")]
    [InlineData("Transport:DrainTimeout", "00:00:00")]
    [InlineData("Transport:DrainTimeout", "-00:00:01")]
    [InlineData("Transport:DrainTimeout", "50.00:00:00")]
    [InlineData("Sockets:IOQueueCount", "-1")]
    [InlineData("Sockets:IOQueueCount", "1025")]
    [InlineData("Sockets:UnsafePreferInlineScheduling", "sometimes")]
    public void AnUnusableTransportSettingStopsTheServerAtStartUpNamingTheKey(string key, string value)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => Program.BuildApplication(["--urls", "http://127.0.0.1:0", $"--{key}", value], new FakeTimeProvider()));

        Assert.Contains($"'{key}'", exception.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', exception.Message);
    }

    [Fact]
    public async Task KestrelsSocketSettingsAreReadFromTheSocketsSection()
    {
        await using WebApplication app = Program.BuildApplication(
            ["--urls", "http://127.0.0.1:0", "--Transport:Kind", "Sockets", "--Sockets:IOQueueCount", "3", "--Sockets:WaitForDataBeforeAllocatingBuffer", "false", "--Sockets:UnsafePreferInlineScheduling", "false"],
            new FakeTimeProvider());

        SocketTransportOptions options = app.Services.GetRequiredService<IOptions<SocketTransportOptions>>().Value;
        Assert.Equal(3, options.IOQueueCount);
        Assert.False(options.WaitForDataBeforeAllocatingBuffer);
        Assert.False(options.UnsafePreferInlineScheduling);
    }

    /// <summary>A kind that is not one of the names: the binder would say only "Failed to convert", or take a number or a list.</summary>
    public static TheoryData<string> KindsThatAreNotNames => new() { "Bogus", "1", "IoUring,Epoll", "" };

    [Theory]
    [MemberData(nameof(KindsThatAreNotNames))]
    public void AKindThatIsNotANameIsRefusedNamingTheKinds(string kind)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => Program.BuildApplication(["--urls", "http://127.0.0.1:0", "--Transport:Kind", kind], new FakeTimeProvider()));

        Assert.Equal($"Configuration 'Transport:Kind' must be one of Auto, IoUring, Epoll, Sockets, not '{kind}'.", exception.Message);
    }

    [Theory]
    [MemberData(nameof(KindsThatAreNotNames))]
    public async Task AKindThatIsNotANameStopsTheServerWithOneLineAndExitCode2(string kind)
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(["--urls", "http://127.0.0.1:0", $"--Transport:Kind={kind}"]);

        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.Equal($"PlatformBenchmarks: Configuration 'Transport:Kind' must be one of Auto, IoUring, Epoll, Sockets, not '{kind}'.", server.Error.TrimEnd());
    }

    [Theory]
    [InlineData("Auto", TransportKind.IoUring)]
    [InlineData("iouring", TransportKind.IoUring)]
    [InlineData("epoll", TransportKind.Epoll)]
    [InlineData("Sockets", TransportKind.Sockets)]
    public async Task TheConfiguredKindIsTheOneRegistered(string kind, TransportKind expected)
    {
        await using WebApplication app = Program.BuildApplication(["--urls", "http://127.0.0.1:0", "--Transport:Kind", kind, "--Transport:ThreadCount", "3"], new FakeTimeProvider());

        Assert.Equal(expected, app.Services.GetRequiredService<TransportChoice>().Kind);
        Assert.Equal(expected != TransportKind.Sockets, app.Services.GetServices<Microsoft.AspNetCore.Connections.IConnectionListenerFactory>().Single() is LinuxTransportFactory);
        Assert.Equal(3, app.Services.GetRequiredService<IOptions<LinuxTransportOptions>>().Value.EffectiveThreadCount);
    }
}
