using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Transport;
using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Hosting;

public class TransportSettingsTests
{
    [Theory]
    [InlineData("Kind", "Fast")]
    [InlineData("ThreadCount", "-1")]
    [InlineData("ThreadCount", "many")]
    [InlineData("MaxReadBufferSize", "0")]
    public void AnUnusableTransportSettingStopsTheServerAtStartUpNamingTheKey(string key, string value)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => Program.BuildApplication(["--urls", "http://127.0.0.1:0", $"--Transport:{key}", value], new FakeTimeProvider()));

        Assert.Contains($"'Transport:{key}'", exception.Message, StringComparison.Ordinal);
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
        Assert.Equal(3, app.Services.GetRequiredService<Microsoft.Extensions.Options.IOptions<TransportOptions>>().Value.EffectiveThreadCount);
    }
}
