using System.Diagnostics;
using Microsoft.Extensions.DependencyInjection;
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
    public async Task OnOurOwnLoopsTheClientReadsTheEndOfTheStreamWithin100MsOfTheLastResponse(TransportKind kind, string requests, int status)
    {
        // RFC 9112 §9.6: last response, FIN at once, then the server lingers on the read side. The client does not close
        // its side, so a server that lingered before its FIN would hold the end back for the linger timeout (2 s).
        await using KindServer server = await KindServer.StartAsync(kind);
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync(requests);

        Assert.Equal(status, (await client.ReadAsync())!.Status);
        long afterResponse = Stopwatch.GetTimestamp();
        Assert.True(await client.IsClosedByServerAsync());
        Assert.InRange(Stopwatch.GetElapsedTime(afterResponse).TotalMilliseconds, 0, 100);

        // The read side is still open: what the client sends now is read and dropped, not answered with a reset.
        await client.SendAsync(Requests.Plaintext);
        client.ShutdownSend();
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task WhenTheHostStopsAnIdleKeepAliveConnectionClosesAtOnce(TransportKind kind)
    {
        // Without it, one idle client holds the host's stop for its whole shutdown timeout (30 s).
        KindServer server = await KindServer.StartAsync(kind);
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync(Requests.Plaintext);
        Assert.Equal(200, (await client.ReadAsync())!.Status);

        long stopping = Stopwatch.GetTimestamp();
        await server.DisposeAsync();

        Assert.True(await client.IsClosedByServerAsync());
        Assert.InRange(Stopwatch.GetElapsedTime(stopping).TotalSeconds, 0, 15);
    }

    internal sealed class KindServer : ServerFixture, IAsyncDisposable
    {
        private readonly TransportKind _kind;

        private KindServer(TransportKind kind) => _kind = kind;

        public TransportChoice Choice => Services.GetRequiredService<TransportChoice>();

        protected override IReadOnlyList<string> Settings => ["--Transport:Kind", _kind.ToString()];

        public static async Task<KindServer> StartAsync(TransportKind kind)
        {
            var server = new KindServer(kind);
            await server.InitializeAsync();
            return server;
        }

        async ValueTask IAsyncDisposable.DisposeAsync() => await DisposeAsync();
    }
}
