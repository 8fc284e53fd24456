using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>
/// The host hands each connection its transport loop, and the TFB routes hand it to the data layer: /db read on this
/// project's loops goes through the loops' own connections, and on Kestrel's sockets (no loops) through the pool.
/// </summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class LoopWiringTests
{
    public static TheoryData<TransportKind, bool> Kinds() => OperatingSystem.IsLinux()
        ? new TheoryData<TransportKind, bool> { { TransportKind.IoUring, true }, { TransportKind.Epoll, true }, { TransportKind.Sockets, false } }
        : new TheoryData<TransportKind, bool> { { TransportKind.Sockets, false } };

    public static TheoryData<TransportKind, bool, TlsEngine> KindsAndEngines()
    {
        var data = new TheoryData<TransportKind, bool, TlsEngine>();
        foreach ((TransportKind kind, bool loops) in OperatingSystem.IsLinux()
            ? [(TransportKind.IoUring, true), (TransportKind.Epoll, true), (TransportKind.Sockets, false)]
            : new[] { (TransportKind.Sockets, false) })
        {
            foreach (TlsEngine engine in Enum.GetValues<TlsEngine>())
            {
                data.Add(kind, loops, engine);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task DbReadsOnTheLoopsGoThroughTheLoopsOwnConnections(TransportKind kind, bool loops)
    {
        // A name of this test's own, so that other servers of the test run cannot be counted.
        string name = $"pb-wiring-{kind}-{Environment.ProcessId}".ToLowerInvariant();
        var server = new Server(kind, name);
        await server.InitializeAsync();
        try
        {
            using RawClient client = await server.ConnectAsync();
            for (int i = 0; i < 20; i++)
            {
                await client.SendAsync("GET /db HTTP/1.1\r\nHost: t\r\n\r\n");
                Assert.Equal(200, (await client.ReadAsync())!.Status);
            }

            Assert.Equal(loops, await BackendsNamedAsync(Database.LaneApplicationName(name)) > 0);
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    /// <summary>
    /// Over TLS the handlers still run on their connection's loop: the TLS layer's reads resume on the thread the
    /// transport resumes them on, the loop's, and keep the connection's features, its loop among them. A read made off
    /// the loop would go through the pool, and the loops' own connections would never be opened.
    /// </summary>
    [Theory]
    [MemberData(nameof(KindsAndEngines))]
    public async Task OverTlsDbReadsOnTheLoopsStillGoThroughTheLoopsOwnConnections(TransportKind kind, bool loops, TlsEngine engine)
    {
        string name = $"pb-wiring-tls-{engine}-{kind}-{Environment.ProcessId}".ToLowerInvariant();
        using var certificate = TestCertificate.Create();
        var server = new Server(kind, name, ["--urls", "https://127.0.0.1:0", "--Tls:Engine", engine.ToString(), .. certificate.Settings]);
        await server.InitializeAsync();
        try
        {
            using var socket = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
            await socket.ConnectAsync(System.Net.IPAddress.Loopback, server.Port);
            await using var tls = new System.Net.Security.SslStream(new System.Net.Sockets.NetworkStream(socket, ownsSocket: false));
            await tls.AuthenticateAsClientAsync(certificate.ClientOptions("http/1.1"));
            for (int i = 0; i < 20; i++)
            {
                await tls.WriteAsync(Requests.Bytes("GET /db HTTP/1.1\r\nHost: t\r\n\r\n"));
                Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token))!.Status);
            }

            Assert.Equal(loops, await BackendsNamedAsync(Database.LaneApplicationName(name)) > 0);
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    private static async Task<long> BackendsNamedAsync(string applicationName)
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using var command = new NpgsqlCommand("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", connection);
        command.Parameters.Add(new NpgsqlParameter { Value = applicationName });
        return (long)(await command.ExecuteScalarAsync())!;
    }

    private sealed class Server(TransportKind kind, string applicationName, IReadOnlyList<string>? settings = null) : ServerFixture
    {
        protected override IReadOnlyList<string> Settings =>
            ["--Transport:Kind", kind.ToString(), "--ConnectionString", $"{TestDatabase.ConnectionString};Application Name={applicationName}", .. settings ?? []];
    }
}
