using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints.Conformance;

/// <summary>The routes an outside conformance suite probes: <c>/</c>, <c>/echo</c> and <c>/cookie</c>, through the server's router.</summary>
public class ConformanceRoutesTests
{
    private static async Task<RawResponse> SendAsync(string request, bool head = false)
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync(request);
        return (await connection.ReadAsync(head))!;
    }

    [Fact]
    public async Task TheRootAnswersGetWithOk()
    {
        RawResponse response = await SendAsync("GET / HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal(200, response.Status);
        Assert.Equal("OK", response.BodyText);
        Assert.NotNull(response.Header("Date"));
    }

    [Fact]
    public async Task TheRootAnswersHeadWithTheFieldsOfGetAndNoBody()
    {
        RawResponse response = await SendAsync("HEAD / HTTP/1.1\r\nHost: t\r\n\r\n", head: true);

        Assert.Equal(200, response.Status);
        Assert.Equal("2", response.Header("Content-Length"));
    }

    [Theory]
    [InlineData("OPTIONS", 200)]
    [InlineData("DELETE", 405)]
    public async Task TheRootNamesItsMethodsInAllow(string method, int status)
    {
        RawResponse response = await SendAsync($"{method} / HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal(status, response.Status);
        Assert.Equal("GET, HEAD, POST, OPTIONS", response.Header("Allow"));
    }

    [Theory]
    [InlineData("Content-Length: 11\r\nContent-Type: application/x-test\r\n\r\nhello world", "application/x-test")]
    [InlineData("Transfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n6\r\n world\r\n0\r\nT: 1\r\n\r\n", "text/plain; charset=utf-8")]
    public async Task PostToTheRootEchoesTheBodyWithItsContentTypeAndTheNextRequestFollows(string fieldsAndBody, string contentType)
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync($"POST / HTTP/1.1\r\nHost: t\r\n{fieldsAndBody}GET / HTTP/1.1\r\nHost: t\r\n\r\n");

        RawResponse echo = (await connection.ReadAsync())!;
        Assert.Equal(200, echo.Status);
        Assert.Equal("hello world", echo.BodyText);
        Assert.Equal(contentType, echo.Header("Content-Type"));
        Assert.Equal("OK", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task PostToTheRootEchoesABodyThatArrivesInPieces()
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhel");
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync("lo wo");
        await connection.ExaminedAllSentAsync();
        await connection.SendAsync("rl");

        Assert.Equal("hello world"[..10], (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task EchoWritesEachHeaderFieldAsReceivedOnALineOfItsOwn()
    {
        RawResponse response = await SendAsync("GET /echo HTTP/1.1\r\nHost: t\r\nX-Spaced:  a b \t\r\nx-lower: 2\r\nX-Empty:\r\n\r\n");

        Assert.Equal(200, response.Status);
        Assert.Equal("Host: t\nX-Spaced: a b\nx-lower: 2\nX-Empty: \n", response.BodyText);
    }

    [Theory]
    [InlineData("Cookie: a=1; b=2\r\n", "a=1\nb=2\n")]
    [InlineData("Cookie: a=1\r\nCookie: b=2\r\n", "a=1\nb=2\n")]
    [InlineData("Cookie: a=1;;b; =x;c=\r\n", "a=1\nc=\n")]
    [InlineData("Cookie: s=a=b\r\n", "s=a=b\n")]
    [InlineData("Cookie:  spaced = v ;\tt=\"q\"\r\n", "spaced=v\nt=\"q\"\n")]
    [InlineData("", "")]
    public async Task CookieWritesTheParsedPairsAndSkipsMalformedOnes(string fields, string expected)
    {
        RawResponse response = await SendAsync($"GET /cookie HTTP/1.1\r\nHost: t\r\n{fields}\r\n");

        Assert.Equal(200, response.Status);
        Assert.Equal(expected, response.BodyText);
    }

    [Theory]
    [InlineData("/echo")]
    [InlineData("/cookie")]
    public async Task EchoAndCookieAnswerOnlyGetAndHead(string path)
    {
        RawResponse response = await SendAsync($"DELETE {path} HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal(405, response.Status);
        Assert.Equal("GET, HEAD", response.Header("Allow"));
    }
}
