using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// The real server, as Program builds it, with two listeners on ephemeral loopback ports: http:// (HTTP/1.1) and
/// h2c:// (HTTP/2 with prior knowledge), so a route's answers over both can be compared.
/// </summary>
public sealed class H2cServerFixture : IAsyncLifetime
{
    private WebApplication? _app;

    public int Http1Port { get; private set; }

    public int H2cPort { get; private set; }

    /// <summary>The h2c listener as its clients address it: http://, with HTTP/2 asked of the client.</summary>
    public Uri H2cAddress => new($"http://127.0.0.1:{H2cPort}/");

    public Uri Http1Address => new($"http://127.0.0.1:{Http1Port}/");

    public async Task InitializeAsync()
    {
        _app = Program.BuildApplication(
            ["--urls", "http://127.0.0.1:0;h2c://127.0.0.1:0", "--ConnectionString", Data.TestDatabase.ConnectionString, "--Logging:LogLevel:Microsoft.Hosting.Lifetime", "Warning"],
            TimeProvider.System);
        await _app.StartAsync();
        string[] addresses = [.. _app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses];
        // Kestrel binds one endpoint per address of urls, in order.
        Http1Port = new Uri(addresses[0]).Port;
        H2cPort = new Uri(addresses[1]).Port;
    }

    public async Task DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.StopAsync();
            await _app.DisposeAsync();
        }
    }

    /// <summary>A raw TCP connection to the h2c listener.</summary>
    public async Task<NetworkStream> ConnectH2cAsync()
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(IPAddress.Loopback, H2cPort);
        return new NetworkStream(socket, ownsSocket: true);
    }
}
