using System.Net.Sockets;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>An echo application over the transport's pipes: every byte comes back, in order, whatever its size.</summary>
public abstract class EchoTests(TransportKind kind)
{
    private const int Block = PinnedBlockMemoryPool.BlockSize;

    public static TheoryData<int> Sizes()
    {
        var sizes = new TheoryData<int> { 1, 2 };
        // Either side of a receive (half a block), a block, two blocks, the output pipe's thresholds, and 1 MiB.
        foreach (int boundary in new[] { Block / 2, Block, 2 * Block, 32 * 1024, 64 * 1024, 128 * 1024, 1024 * 1024 })
        {
            sizes.Add(boundary - 1);
            sizes.Add(boundary);
            sizes.Add(boundary + 1);
        }

        return sizes;
    }

    [Theory]
    [MemberData(nameof(Sizes), MemberType = typeof(EchoTests))]
    public async Task APayloadOfAnySizeComesBackByteForByte(int size)
    {
        await using TestServer server = await TestServer.StartEchoAsync(kind);
        using Socket client = await server.ConnectAsync();
        byte[] payload = SocketExtensions.Pattern(size, seed: size);

        Task sending = client.SendAllAsync(payload);
        byte[] echoed = await client.ReceiveExactlyAsync(size);
        await sending;

        Assert.Equal(payload, echoed);
    }

    [Fact]
    public async Task AThousandConcurrentConnectionsEachGetTheirOwnBytesBack()
    {
        await using TestServer server = await TestServer.StartEchoAsync(kind);
        Socket[] clients = await Task.WhenAll(Enumerable.Range(0, 1000).Select(_ => server.ConnectAsync()));
        try
        {
            await Task.WhenAll(clients.Select(async (client, i) =>
            {
                byte[] payload = SocketExtensions.Pattern(100 + (i % 300), seed: i);
                await client.SendAllAsync(payload);
                Assert.Equal(payload, await client.ReceiveExactlyAsync(payload.Length));
            }));
        }
        finally
        {
            foreach (Socket client in clients)
            {
                client.Dispose();
            }
        }

        await server.ConnectionsDoneAsync();
        Assert.Equal(0, server.ConnectionCount);
    }

    [Fact]
    public async Task ManyMessagesOnOneConnectionAreEchoedInOrder()
    {
        await using TestServer server = await TestServer.StartEchoAsync(kind);
        using Socket client = await server.ConnectAsync();
        for (int i = 0; i < 200; i++)
        {
            byte[] payload = SocketExtensions.Pattern(1 + (i * 37 % 5000), seed: i);
            await client.SendAllAsync(payload);
            Assert.Equal(payload, await client.ReceiveExactlyAsync(payload.Length));
        }
    }
}

public sealed class EchoTestsOnIoUring() : EchoTests(TransportKind.IoUring);

public sealed class EchoTestsOnEpoll() : EchoTests(TransportKind.Epoll);
