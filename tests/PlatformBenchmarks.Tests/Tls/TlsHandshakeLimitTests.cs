using System.Net.Security;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// Slow and abandoned handshakes hold the server no longer than <c>Tls:HandshakeTimeout</c> on its clock (a fake one
/// here, moved by the test), and no more than <c>Tls:MaxHandshakes</c> of them are in progress at once.
/// </summary>
public class TlsHandshakeLimitTests
{
    private static readonly TimeSpan HandshakeTimeout = TimeSpan.FromSeconds(10);

    public static TheoryData<TransportKind> Kinds() => OperatingSystem.IsLinux()
        ? new TheoryData<TransportKind> { TransportKind.IoUring, TransportKind.Epoll, TransportKind.Sockets }
        : new TheoryData<TransportKind> { TransportKind.Sockets };

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task AHandshakeThatStallsIsClosedWhenTheTimeoutPassesOnTheServersClock(TransportKind kind)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, time, maxHandshakes: 100);
        using RawClient stalled = await server.ConnectAsync();
        // The first bytes of a ClientHello, and no more.
        await stalled.SendAsync("\u0016\u0003\u0001\u0000\u0030\u0001\u0000\u0000\u002c");
        await WaitForHandshakesAsync(server, 1);

        time.Advance(HandshakeTimeout - TimeSpan.FromTicks(1));
        Assert.Equal(1, server.Tls.HandshakesInProgress);
        time.Advance(TimeSpan.FromTicks(1));

        Assert.True(await stalled.IsClosedByServerAsync());
        await WaitForHandshakesAsync(server, 0);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task BeyondTheCapOnHandshakesInProgressAConnectionIsClosedAtOnceAndTheServerRecoversAfterTheTimeout(TransportKind kind)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, time, maxHandshakes: 2);
        using RawClient first = await server.ConnectAsync();
        using RawClient second = await server.ConnectAsync();
        await WaitForHandshakesAsync(server, 2);

        using (RawClient refused = await server.ConnectAsync())
        {
            Assert.True(await refused.IsClosedByServerAsync());
        }

        Assert.Equal(2, server.Tls.HandshakesInProgress);
        time.Advance(HandshakeTimeout);
        Assert.True(await first.IsClosedByServerAsync());
        Assert.True(await second.IsClosedByServerAsync());
        await WaitForHandshakesAsync(server, 0);

        await using SslStream tls = await server.ConnectTlsAsync("http/1.1");
        await tls.WriteAsync(Requests.Bytes(Requests.Plaintext));
        Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token))!.Status);
    }

    /// <summary>Waits (on the real clock, bounded) until the server has begun or ended the handshakes of connections just opened or closed.</summary>
    private static async Task WaitForHandshakesAsync(Server server, int count)
    {
        for (int attempt = 0; server.Tls.HandshakesInProgress != count; attempt++)
        {
            Assert.True(attempt < 1000, $"{server.Tls.HandshakesInProgress} handshakes in progress, expected {count}");
            await Task.Delay(10);
        }
    }

    private sealed class Server : TlsServerFixture, IAsyncDisposable
    {
        private Server(TransportKind kind, TimeProvider time, int maxHandshakes)
            : base(kind, time, "--Tls:HandshakeTimeout", HandshakeTimeout.ToString("c", System.Globalization.CultureInfo.InvariantCulture), "--Tls:MaxHandshakes", maxHandshakes.ToString(System.Globalization.CultureInfo.InvariantCulture))
        {
        }

        public static async Task<Server> StartAsync(TransportKind kind, TimeProvider time, int maxHandshakes)
        {
            var server = new Server(kind, time, maxHandshakes);
            await server.InitializeAsync();
            return server;
        }

        async ValueTask IAsyncDisposable.DisposeAsync() => await DisposeAsync();
    }
}
