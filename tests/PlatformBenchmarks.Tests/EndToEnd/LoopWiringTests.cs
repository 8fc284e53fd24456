using Npgsql;
using PlatformBenchmarks.Data;
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

    private static async Task<long> BackendsNamedAsync(string applicationName)
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using var command = new NpgsqlCommand("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", connection);
        command.Parameters.Add(new NpgsqlParameter { Value = applicationName });
        return (long)(await command.ExecuteScalarAsync())!;
    }

    private sealed class Server(TransportKind kind, string applicationName) : ServerFixture
    {
        protected override IReadOnlyList<string> Settings =>
            ["--Transport:Kind", kind.ToString(), "--ConnectionString", $"{TestDatabase.ConnectionString};Application Name={applicationName}"];
    }
}
