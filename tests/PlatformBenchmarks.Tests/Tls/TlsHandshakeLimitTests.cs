using System.Net.Security;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Http.Tls;
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

    /// <summary>Every transport kind of this system with every TLS engine.</summary>
    private static IEnumerable<(TransportKind Kind, TlsEngine Engine)> KindsAndEngines() =>
        from kind in OperatingSystem.IsLinux() ? [TransportKind.IoUring, TransportKind.Epoll, TransportKind.Sockets] : new[] { TransportKind.Sockets }
        from engine in Enum.GetValues<TlsEngine>()
        select (kind, engine);

    public static TheoryData<TransportKind, TlsEngine> Kinds()
    {
        var data = new TheoryData<TransportKind, TlsEngine>();
        foreach ((TransportKind kind, TlsEngine engine) in KindsAndEngines())
        {
            data.Add(kind, engine);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task AHandshakeThatStallsIsClosedWhenTheTimeoutPassesOnTheServersClock(TransportKind kind, TlsEngine engine)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, engine, time, maxHandshakes: 100);
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
    public async Task BeyondTheCapOnHandshakesInProgressAConnectionIsClosedAtOnceAndTheServerRecoversAfterTheTimeout(TransportKind kind, TlsEngine engine)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, engine, time, maxHandshakes: 2);
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

        await AssertAnsweredOverTlsAsync(server);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task AWholeClientHelloFollowedBySilenceIsClosedWhenTheTimeoutPasses(TransportKind kind, TlsEngine engine)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, engine, time, maxHandshakes: 100);
        using RawClient stalled = await server.ConnectAsync();
        // A real ClientHello: the server answers it and waits inside the TLS library for the client's next flight.
        await stalled.Stream.WriteAsync(await ClientHelloTests.ClientHelloOfferingAsync("http/1.1"));
        await stalled.ServerHasSentAsync();
        Assert.Equal(1, server.Tls.HandshakesInProgress);

        time.Advance(HandshakeTimeout);

        // Past the server's flight, the end of the stream.
        await ClosedByServerAsync(stalled).WaitAsync(TimeSpan.FromSeconds(10));
        await WaitForHandshakesAsync(server, 0);
    }

    public static TheoryData<TransportKind, TlsEngine, bool> KindsAndEnds()
    {
        var data = new TheoryData<TransportKind, TlsEngine, bool>();
        foreach ((TransportKind kind, TlsEngine engine) in KindsAndEngines())
        {
            data.Add(kind, engine, false);
            data.Add(kind, engine, true);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(KindsAndEnds))]
    public async Task AHandshakeThePeerClosesOrResetsMidwayIsNoLongerCountedWithoutTheClock(TransportKind kind, TlsEngine engine, bool reset)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, engine, time, maxHandshakes: 1);
        using (RawClient leaving = await server.ConnectAsync())
        {
            await leaving.SendAsync("\u0016\u0003\u0001\u0000\u0030\u0001\u0000\u0000\u002c");
            await WaitForHandshakesAsync(server, 1);
            if (reset)
            {
                leaving.Reset();
            }
            else
            {
                leaving.ShutdownSend();
                Assert.True(await leaving.IsClosedByServerAsync());
            }
        }

        await WaitForHandshakesAsync(server, 0);
        // The one slot is free again, with the clock where it was.
        await AssertAnsweredOverTlsAsync(server);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task AGarbageClientHelloIsClosedAtOnceAndNoLongerCounted(TransportKind kind, TlsEngine engine)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, engine, time, maxHandshakes: 1);
        using (RawClient garbage = await server.ConnectAsync())
        {
            // Plaintext HTTP on the TLS port: no record a handshake can start with, judged by the first bytes alone.
            await garbage.SendAsync(Requests.Plaintext);
            Assert.True(await garbage.IsClosedByServerAsync());
        }

        await WaitForHandshakesAsync(server, 0);
        await AssertAnsweredOverTlsAsync(server);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task AFloodOfAbandonedHandshakesLeavesAnEstablishedConnectionAnsweringAndEndsOnTheClock(TransportKind kind, TlsEngine engine)
    {
        var time = new FakeTimeProvider();
        await using Server server = await Server.StartAsync(kind, engine, time, maxHandshakes: 32);
        await using SslStream established = await server.ConnectTlsAsync("http/1.1");
        var flood = new List<RawClient>();
        try
        {
            // Three times the cap: each sends the start of a ClientHello and never the rest.
            for (int i = 0; i < 96; i++)
            {
                RawClient client = await server.ConnectAsync();
                flood.Add(client);
                await client.SendAsync("\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc");
                if (i % 16 == 0)
                {
                    await established.WriteAsync(Requests.Bytes(Requests.Plaintext));
                    Assert.Equal(200, (await RawResponse.ReadAsync(established, cancellationToken: new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token))!.Status);
                }
            }

            // Every connection of the flood has reached the TLS layer before the clock moves: the cap closed all but 32.
            var closing = flood.Select(client => ClosedByServerAsync(client)).ToList();
            await WaitForClosedAsync(closing, 96 - 32);
            Assert.Equal(32, server.Tls.HandshakesInProgress);
            time.Advance(HandshakeTimeout);
            await WaitForHandshakesAsync(server, 0);
            await WaitForClosedAsync(closing, 96);

            await established.WriteAsync(Requests.Bytes(Requests.Json));
            Assert.Equal(200, (await RawResponse.ReadAsync(established, cancellationToken: new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token))!.Status);
        }
        finally
        {
            flood.ForEach(client => client.Dispose());
        }
    }

    /// <summary>A new TLS connection is handshaken and answered.</summary>
    private static async Task AssertAnsweredOverTlsAsync(Server server)
    {
        await using SslStream tls = await server.ConnectTlsAsync("http/1.1");
        await tls.WriteAsync(Requests.Bytes(Requests.Plaintext));
        Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token))!.Status);
    }

    /// <summary>Completes when the server closes the connection (end of stream or a reset).</summary>
    private static async Task ClosedByServerAsync(RawClient client)
    {
        byte[] one = new byte[1];
        try
        {
            while (await client.Stream.ReadAsync(one) > 0)
            {
            }
        }
        catch (IOException)
        {
        }
    }

    /// <summary>Waits (on the real clock, bounded) until <paramref name="count"/> of the connections were closed by the server.</summary>
    private static async Task WaitForClosedAsync(List<Task> closing, int count)
    {
        for (int attempt = 0; closing.Count(task => task.IsCompleted) < count; attempt++)
        {
            Assert.True(attempt < 3000, $"{closing.Count(task => task.IsCompleted)} connections closed by the server, expected {count}");
            await Task.Delay(10);
        }
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
        private Server(TransportKind kind, TlsEngine engine, TimeProvider time, int maxHandshakes)
            : base(kind, time, "--Tls:Engine", engine.ToString(), "--Tls:HandshakeTimeout", HandshakeTimeout.ToString("c", System.Globalization.CultureInfo.InvariantCulture), "--Tls:MaxHandshakes", maxHandshakes.ToString(System.Globalization.CultureInfo.InvariantCulture))
        {
        }

        public static async Task<Server> StartAsync(TransportKind kind, TlsEngine engine, TimeProvider time, int maxHandshakes)
        {
            var server = new Server(kind, engine, time, maxHandshakes);
            await server.InitializeAsync();
            return server;
        }

        async ValueTask IAsyncDisposable.DisposeAsync() => await DisposeAsync();
    }
}
