using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>
/// The whole server over real loopback sockets: the transport (epoll on Linux by default; <see cref="SocketsServerTests"/>
/// runs every case again on Kestrel's sockets), the engine, the router, the endpoints.
/// </summary>
public class ServerTests(ServerFixture server) : IClassFixture<ServerFixture>
{
    private const string PlaintextResponse =
        "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: *\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";

    private const string JsonResponse =
        "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: *\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{\"message\":\"Hello, World!\"}";

    [Fact]
    public async Task SixteenPipelinedPlaintextRequestsInOneWriteAreAnsweredInOrderByteForByte()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync(string.Concat(Enumerable.Repeat(Requests.Plaintext, 16)));

        for (int i = 0; i < 16; i++)
        {
            Assert.Equal(PlaintextResponse, (await client.ReadAsync())!.WithoutDate());
        }
    }

    [Fact]
    public async Task MixedPipelinedRequestsAreAnsweredInOrder()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync(Requests.Json + Requests.Plaintext + "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n" + Requests.Json);

        Assert.Equal(JsonResponse, (await client.ReadAsync())!.WithoutDate());
        Assert.Equal(PlaintextResponse, (await client.ReadAsync())!.WithoutDate());
        Assert.Equal(404, (await client.ReadAsync())!.Status);
        Assert.Equal(JsonResponse, (await client.ReadAsync())!.WithoutDate());
    }

    [Fact]
    public async Task RequestWrittenOneByteAtATimeIsAnswered()
    {
        using RawClient client = await server.ConnectAsync();
        foreach (byte b in Requests.Bytes(Requests.Json))
        {
            await client.Stream.WriteAsync(new[] { b });
            await client.Stream.FlushAsync();
        }

        Assert.Equal(JsonResponse, (await client.ReadAsync())!.WithoutDate());
    }

    [Fact]
    public async Task KeepAliveConnectionIsReused()
    {
        using RawClient client = await server.ConnectAsync();
        for (int i = 0; i < 5; i++)
        {
            await client.SendAsync(Requests.Plaintext);
            RawResponse response = (await client.ReadAsync())!;
            Assert.Equal(PlaintextResponse, response.WithoutDate());
            Assert.Null(response.Header("Connection"));
        }
    }

    [Fact]
    public async Task ConnectionCloseIsHonoured()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

        RawResponse response = (await client.ReadAsync())!;
        Assert.Equal(200, response.Status);
        Assert.Equal("close", response.Header("Connection"));
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task Http10IsAnsweredThenClosed()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync("GET /json HTTP/1.0\r\n\r\n");

        RawResponse response = (await client.ReadAsync())!;
        Assert.Equal("{\"message\":\"Hello, World!\"}", response.BodyText);
        Assert.Equal("close", response.Header("Connection"));
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task Http10KeepAliveStaysOpen()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync("GET /plaintext HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        Assert.Equal("keep-alive", (await client.ReadAsync())!.Header("Connection"));

        await client.SendAsync("GET /plaintext HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        Assert.Equal("Hello, World!", (await client.ReadAsync())!.BodyText);
    }

    [Theory]
    [InlineData("/plaintext", "13", "text/plain")]
    [InlineData("/json", "27", "application/json")]
    public async Task HeadGetsTheSameFieldsAndNoBody(string path, string length, string contentType)
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync($"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n" + Requests.Plaintext);

        RawResponse head = (await client.ReadAsync(head: true))!;
        Assert.Equal(200, head.Status);
        Assert.Equal(length, head.Header("Content-Length"));
        Assert.Equal(contentType, head.Header("Content-Type"));
        Assert.Equal(PlaintextResponse, (await client.ReadAsync())!.WithoutDate());
    }

    [Fact]
    public async Task UnknownPathIs404()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync("GET /plaintext/extra HTTP/1.1\r\nHost: x\r\n\r\n");

        RawResponse response = (await client.ReadAsync())!;
        Assert.Equal(404, response.Status);
        Assert.Equal("Not found.\n", response.BodyText);
    }

    [Theory]
    [InlineData("POST")]
    [InlineData("DELETE")]
    [InlineData("OPTIONS")]
    public async Task OtherMethodsOnAKnownRouteAre405WithAllow(string method)
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync($"{method} /json HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");

        RawResponse response = (await client.ReadAsync())!;
        Assert.Equal(405, response.Status);
        Assert.Equal("GET, HEAD", response.Header("Allow"));
    }

    [Theory]
    [InlineData("BREW")]
    [InlineData("get")]
    public async Task AMethodTheServerDoesNotRecogniseIs501AndTheConnectionGoesOn(string method)
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync($"{method} /json HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nGET /json HTTP/1.1\r\nHost: x\r\n\r\n");

        Assert.Equal(501, (await client.ReadAsync())!.Status);
        Assert.Equal(200, (await client.ReadAsync())!.Status);
    }

    [Fact]
    public async Task BadRequestIsAnswered400ThenClosed()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync("GET /plaintext HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n");

        RawResponse response = (await client.ReadAsync())!;
        Assert.Equal(400, response.Status);
        Assert.Equal("close", response.Header("Connection"));
        Assert.Equal("Malformed header name.\n", response.BodyText);
        Assert.True(await client.IsClosedByServerAsync());
    }

    [Fact]
    public async Task RequestWithABodyFollowedByAPipelinedRequestAreBothAnswered()
    {
        using RawClient client = await server.ConnectAsync();
        await client.SendAsync("POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\nGET /json HTTP/1" + Requests.Plaintext
            + "POST /plaintext HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\n\r\n" + Requests.Json);

        Assert.Equal(405, (await client.ReadAsync())!.Status);
        Assert.Equal(PlaintextResponse, (await client.ReadAsync())!.WithoutDate());
        Assert.Equal(405, (await client.ReadAsync())!.Status);
        Assert.Equal(JsonResponse, (await client.ReadAsync())!.WithoutDate());
    }

    [Fact]
    public async Task TwoHundredFiftySixConcurrentConnectionsAreAllAnswered()
    {
        RawClient[] clients = await Task.WhenAll(Enumerable.Range(0, 256).Select(_ => server.ConnectAsync()));
        try
        {
            await Task.WhenAll(clients.Select(async (client, i) =>
            {
                for (int round = 0; round < 3; round++)
                {
                    await client.SendAsync(i % 2 == 0 ? Requests.Plaintext : Requests.Json);
                    RawResponse response = (await client.ReadAsync())!;
                    Assert.Equal(i % 2 == 0 ? PlaintextResponse : JsonResponse, response.WithoutDate());
                }
            }));
        }
        finally
        {
            foreach (RawClient client in clients)
            {
                client.Dispose();
            }
        }
    }

    [Fact]
    public async Task ClientsThatResetOrHalfCloseDoNotDisturbTheServer()
    {
        for (int i = 0; i < 20; i++)
        {
            RawClient reset = await server.ConnectAsync();
            await reset.SendAsync(string.Concat(Enumerable.Repeat(Requests.Plaintext, 50)) + "GET /pla");
            reset.Reset();

            using RawClient halfClosed = await server.ConnectAsync();
            await halfClosed.SendAsync(Requests.Json);
            halfClosed.ShutdownSend();
            Assert.Equal(JsonResponse, (await halfClosed.ReadAsync())!.WithoutDate());
            Assert.True(await halfClosed.IsClosedByServerAsync());
        }

        using RawClient after = await server.ConnectAsync();
        await after.SendAsync(Requests.Plaintext);
        Assert.Equal(PlaintextResponse, (await after.ReadAsync())!.WithoutDate());
    }
}
