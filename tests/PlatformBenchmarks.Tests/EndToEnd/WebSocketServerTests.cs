using System.Net.WebSockets;
using System.Text;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>
/// HttpArena's <c>/ws</c> through the framework's own WebSocket client (independent of the server's code), on every
/// transport kind and over TLS: messages of each type and size echo with their type, and the close handshake completes.
/// </summary>
public class WebSocketServerTests
{
    public static TheoryData<TransportKind> Kinds() => TransportKindTests.Kinds();

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ClientWebSocketExchangesMessagesAndClosesCleanly(TransportKind kind)
    {
        await using TransportKindTests.KindServer server = await TransportKindTests.KindServer.StartAsync(kind);
        using var client = new ClientWebSocket();
        await client.ConnectAsync(new Uri($"ws://127.0.0.1:{server.Port}/ws"), Deadline());
        await ExchangeAndCloseAsync(client);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task ClientWebSocketOverTlsExchangesMessagesAndClosesCleanly(TransportKind kind)
    {
        var server = new TlsServerFixture(kind);
        await server.InitializeAsync();
        try
        {
            using var client = new ClientWebSocket();

            // The certificate is the test's own, pinned as its other TLS tests pin it.
            string pinned = server.Certificate.Certificate.GetCertHashString();
            client.Options.RemoteCertificateValidationCallback = (_, presented, _, _) => presented is not null && presented.GetCertHashString() == pinned;
            await client.ConnectAsync(new Uri($"wss://127.0.0.1:{server.Port}/ws"), Deadline());
            await ExchangeAndCloseAsync(client);
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task APlainGetOnTheWebSocketRouteIs400AndOtherMethods405()
    {
        await using TransportKindTests.KindServer server = await TransportKindTests.KindServer.StartAsync(TransportKind.Sockets);
        Assert.Equal(400, (await server.GetAsync("/ws")).Status);
        Assert.Equal(405, (await server.GetAsync("/ws", "POST")).Status);
    }

    private static async Task ExchangeAndCloseAsync(ClientWebSocket client)
    {
        Assert.Null(client.SubProtocol);
        await AssertEchoAsync(client, WebSocketMessageType.Text, "hello"u8.ToArray());
        await AssertEchoAsync(client, WebSocketMessageType.Binary, [0, 1, 2, 255]);
        await AssertEchoAsync(client, WebSocketMessageType.Text, Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("é😀ab", 20_000))));
        await AssertEchoAsync(client, WebSocketMessageType.Binary, [.. Enumerable.Range(0, 300_000).Select(i => (byte)i)], fragments: 3);
        await AssertEchoAsync(client, WebSocketMessageType.Text, []);

        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", Deadline());
        Assert.Equal(WebSocketState.Closed, client.State);
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    private static async Task AssertEchoAsync(ClientWebSocket client, WebSocketMessageType type, byte[] message, int fragments = 1)
    {
        int size = (message.Length + fragments - 1) / Math.Max(fragments, 1);
        for (int i = 0; i < fragments; i++)
        {
            int start = Math.Min(i * size, message.Length);
            int end = i == fragments - 1 ? message.Length : Math.Min(start + size, message.Length);
            await client.SendAsync(message.AsMemory(start, end - start), type, endOfMessage: i == fragments - 1, Deadline());
        }

        var received = new List<byte>();
        byte[] buffer = new byte[16 * 1024];
        ValueWebSocketReceiveResult result;
        do
        {
            result = await client.ReceiveAsync(buffer.AsMemory(), Deadline());
            Assert.Equal(type, result.MessageType);
            received.AddRange(buffer.AsSpan(0, result.Count));
        }
        while (!result.EndOfMessage);

        Assert.Equal(message, received);
    }

    private static CancellationToken Deadline() => new CancellationTokenSource(TimeSpan.FromSeconds(20)).Token;
}
