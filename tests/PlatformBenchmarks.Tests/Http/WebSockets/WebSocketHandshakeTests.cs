using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http.WebSockets;

/// <summary>The opening handshake (RFC 6455 §4.2): 101 for a valid one, 426 for another version, 400 for the rest.</summary>
public class WebSocketHandshakeTests
{
    private const string Key = "Sec-WebSocket-Key: " + Frames.SampleKey + "\r\n";
    private const string Version = "Sec-WebSocket-Version: 13\r\n";
    private const string Upgrade = "Upgrade: websocket\r\n";
    private const string Connection = "Connection: Upgrade\r\n";

    public static TheoryData<string, string, int> Requests() => new()
    {
        { "the RFC's example", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + Key + Version, 101 },
        { "tokens in lists, any case", "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: foo/2, WebSocket\r\nConnection: keep-alive, UPGRADE\r\n" + Key + Version, 101 },
        { "a plain GET", "GET /ws HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n", 400 },
        { "an upgrade to another protocol", "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\n" + Connection + Key + Version, 400 },
        { "no Connection: Upgrade", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + "Connection: keep-alive\r\n" + Key + Version, 400 },
        { "no key", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + Version, 400 },
        { "a key of 15 bytes", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAA\r\n" + Version, 400 },
        { "a key that is not base64", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ!!\r\n" + Version, 400 },
        { "two keys", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + Key + Key + Version, 400 },
        { "POST", "POST /ws HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n" + Upgrade + Connection + Key + Version, 400 },
        { "a body", "GET /ws HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n" + Upgrade + Connection + Key + Version + "\r\nab", 400 },
        { "HTTP/1.0", "GET /ws HTTP/1.0\r\nHost: a\r\n" + Upgrade + Connection + Key + Version, 400 },
        { "no version", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + Key, 426 },
        { "version 8", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + Key + "Sec-WebSocket-Version: 8\r\n", 426 },
        { "two versions", "GET /ws HTTP/1.1\r\nHost: a\r\n" + Upgrade + Connection + Key + Version + Version, 426 },
    };

    [Theory]
    [MemberData(nameof(Requests))]
    public async Task EachHandshakeGetsItsAnswer(string name, string request, int status)
    {
        _ = name;
        await using var connection = new PipeConnection<WebSocketApplication>(new WebSocketApplication(new RecordingHandler(streams: false)));
        await connection.SendAsync(request.EndsWith("ab", StringComparison.Ordinal) ? request : request + "\r\n");
        if (status == 101)
        {
            string head = await Frames.ReadHeadAsync(connection.Output);
            Assert.StartsWith("HTTP/1.1 101 Switching Protocols\r\n", head, StringComparison.Ordinal);
            Assert.Contains("\r\nUpgrade: websocket\r\n", head, StringComparison.Ordinal);
            Assert.Contains("\r\nConnection: Upgrade\r\n", head, StringComparison.Ordinal);
            Assert.Contains("\r\nSec-WebSocket-Accept: " + Frames.SampleAccept + "\r\n", head, StringComparison.Ordinal);
            Assert.DoesNotContain("Sec-WebSocket-Extensions", head, StringComparison.Ordinal);
            return;
        }

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(status, response.Status);
        Assert.Equal(status == 426 ? "13" : null, response.Header("Sec-WebSocket-Version"));

        // No upgrade: the connection still speaks HTTP/1.1 (an HTTP/1.0 one without keep-alive has closed).
        if (request.Contains("HTTP/1.0", StringComparison.Ordinal))
        {
            return;
        }

        await connection.SendAsync("GET /plain HTTP/1.1\r\nHost: a\r\n\r\n");
        Assert.Equal(200, (await connection.ReadAsync())!.Status);
    }

    [Fact]
    public void TheAcceptValueIsTheRfcExample()
    {
        Span<byte> accept = stackalloc byte[PlatformBenchmarks.Http.WebSockets.WebSocketHandshake.AcceptLength];
        PlatformBenchmarks.Http.WebSockets.WebSocketHandshake.ComputeAccept(System.Text.Encoding.ASCII.GetBytes(Frames.SampleKey), accept);
        Assert.Equal(Frames.SampleAccept, System.Text.Encoding.ASCII.GetString(accept));
    }
}
