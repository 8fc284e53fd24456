using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>Every end-to-end case of <see cref="ServerTests"/> again on Kestrel's socket transport (the default run is Auto: io_uring on Linux).</summary>
public class SocketsServerTests(SocketsServerTests.SocketsServer server) : ServerTests(server), IClassFixture<SocketsServerTests.SocketsServer>
{
    public sealed class SocketsServer : ServerFixture
    {
        protected override IReadOnlyList<string> Settings => ["--Transport:Kind", nameof(TransportKind.Sockets)];
    }
}

/// <summary>Every end-to-end case of <see cref="ServerTests"/> again on the epoll loops.</summary>
public class EpollServerTests(EpollServerTests.EpollServer server) : ServerTests(server), IClassFixture<EpollServerTests.EpollServer>
{
    public sealed class EpollServer : ServerFixture
    {
        protected override IReadOnlyList<string> Settings => ["--Transport:Kind", nameof(TransportKind.Epoll)];
    }
}

/// <summary>How each transport kind ends connections, over real sockets: half-close timing and the host stopping.</summary>
public class TransportKindTests
{
    public static TheoryData<TransportKind> Kinds() => OperatingSystem.IsLinux()
        ? new TheoryData<TransportKind> { TransportKind.IoUring, TransportKind.Epoll, TransportKind.Sockets }
        : new TheoryData<TransportKind> { TransportKind.Sockets };

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task TheServerRunsTheKindConfigured(TransportKind kind)
    {
        await using KindServer server = await KindServer.StartAsync(kind);
        Assert.Equal(kind, server.Choice.Kind);
        Assert.Equal(200, (await server.GetAsync("/plaintext")).Status);
    }

    [Theory]
    [InlineData(TransportKind.IoUring, "GARBAGE\r\n\r\n", 400)]
    [InlineData(TransportKind.IoUring, "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /json HTTP/1.1\r\nHost: x\r\n\r\n", 200)]
    [InlineData(TransportKind.Epoll, "GARBAGE\r\n\r\n", 400)]
    [InlineData(TransportKind.Epoll, "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /json HTTP/1.1\r\nHost: x\r\n\r\n", 200)]
    public async Task OnOurOwnLoopsTheClientReadsTheEndOfTheStreamWhileTheServerStillLingers(TransportKind kind, string requests, int status)
    {
        // RFC 9112 §9.6: last response, FIN at once, then the server lingers on the read side. The server's clock stands
        // still and the client does not close its side, so the linger cannot end while the client reads: a server that
        // lingered before its FIN would never send it, and the read would fail.
        await using KindServer server = await KindServer.StartAsync(kind, new FakeTimeProvider());
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync(requests);

        Assert.Equal(status, (await client.ReadAsync())!.Status);
        // The end of the stream, not a reset: the connection is still open on the server's side.
        using (var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(10)))
        {
            Assert.Equal(0, await client.Stream.ReadAsync(new byte[1], deadline.Token));
        }

        // The read side is still open: what the client sends now is read and dropped, not answered with a reset.
        await client.SendAsync(Requests.Plaintext);
        client.ShutdownSend();
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task WhenTheServerStopsAnIdleKeepAliveConnectionClosesWithoutWaitingForTheShutdownTimeout(TransportKind kind)
    {
        // Kestrel waits for connections to end until the token it is stopped with fires (the host's shutdown timeout,
        // 30 s), then aborts them. Stopped with one that never fires, an idle client the server did not close itself
        // would hold the stop, and this test, until it failed.
        await using KindServer server = await KindServer.StartAsync(kind);
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync(Requests.Plaintext);
        Assert.Equal(200, (await client.ReadAsync())!.Status);

        Task stopping = server.Services.GetRequiredService<IServer>().StopAsync(CancellationToken.None);

        Assert.True(await client.IsClosedByServerAsync());
        await stopping.WaitAsync(TimeSpan.FromSeconds(30));
    }

    internal sealed class KindServer : ServerFixture, IAsyncDisposable
    {
        private readonly TransportKind _kind;
        private readonly TimeProvider _time;

        private KindServer(TransportKind kind, TimeProvider time)
        {
            _kind = kind;
            _time = time;
        }

        public TransportChoice Choice => Services.GetRequiredService<TransportChoice>();

        protected override IReadOnlyList<string> Settings => ["--Transport:Kind", _kind.ToString()];

        protected override TimeProvider Time => _time;

        /// <param name="time">The server's clock: the system's unless given.</param>
        public static async Task<KindServer> StartAsync(TransportKind kind, TimeProvider? time = null)
        {
            var server = new KindServer(kind, time ?? TimeProvider.System);
            await server.InitializeAsync();
            return server;
        }

        async ValueTask IAsyncDisposable.DisposeAsync() => await DisposeAsync();
    }
}
