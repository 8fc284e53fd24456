using System.Text;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>
/// A server that closes a connection the client is still sending on reads and drops what arrives, so the response it
/// sent is not destroyed by a reset. Over real sockets: the reset is the kernel's doing. The server here waits up to
/// 30 s of client silence, so a test process busy with other tests cannot end the lingering before the client is done;
/// the client ends it by closing its side, and the server's close follows at once.
/// </summary>
public class LingeringCloseTests(LingeringCloseTests.LongLingerServer server) : IClassFixture<LingeringCloseTests.LongLingerServer>
{
    private const int Size = 4 * 1024 * 1024;

    [Fact]
    public async Task AnOversizedUploadIsAnswered413EvenWhenTheClientSendsItAllBeforeReading()
    {
        // The 413 is decided from the head, while the body is still on its way. Had the server closed at once, the
        // rest of the body would reach a closed socket and the kernel would answer with a reset: the client would get
        // an error instead of the 413, as curl does from servers that close early.
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync($"POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: {Size}\r\n\r\n");
        byte[] chunk = new byte[64 * 1024];
        for (int sent = 0; sent < Size; sent += chunk.Length)
        {
            await client.Stream.WriteAsync(chunk);
            if (sent == 0)
            {
                // The rest goes out once the server has answered (the answer stays unread), so it meets a server that
                // has already decided to close.
                await client.ServerHasSentAsync();
            }
        }

        RawResponse response = (await client.ReadAsync())!;
        Assert.Equal(413, response.Status);
        Assert.Equal("close", response.Header("Connection"));
        client.ShutdownSend();
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task RequestsPipelinedBehindConnectionCloseAreDrainedRatherThanAnsweredWithAReset()
    {
        // One write: the request that asks to close, then 4 MiB more that the server must read and drop, not leave unread.
        var requests = new StringBuilder("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        while (requests.Length < Size)
        {
            requests.Append(Requests.Plaintext);
        }

        using RawClient client = await server.ConnectAsync();
        await client.SendAsync(requests.ToString());

        RawResponse response = (await client.ReadAsync())!;
        Assert.Equal(200, response.Status);
        Assert.Equal("close", response.Header("Connection"));
        client.ShutdownSend();
        Assert.True(await client.IsClosedByServerAsync());
    }

    public sealed class LongLingerServer : ServerFixture
    {
        protected override IReadOnlyList<string> Settings => ["--Http:LingerTimeout", "00:00:30", "--Http:MaxLingerTime", "00:01:00"];
    }
}
