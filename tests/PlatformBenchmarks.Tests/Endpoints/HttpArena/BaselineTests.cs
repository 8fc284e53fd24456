using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>HttpArena's baseline profile: <c>/baseline11?a=&amp;b=</c>, and POST adding the body's integer.</summary>
public class BaselineTests
{
    private const string Target = "/baseline11?a=13&b=42";

    [Theory]
    [InlineData("/baseline11?a=13&b=42", "55")]
    [InlineData("/baseline11?b=999&a=100", "1099")]
    [InlineData("/baseline11?a=-5&b=3", "-2")]
    [InlineData("/baseline11?a=%2B7&b=0", "7")]
    [InlineData("/baseline11?x=1&a=9223372036854775806&b=1", "9223372036854775807")]
    public async Task GetAnswersTheSumAsPlainText(string target, string sum)
    {
        RawResponse response = await SendAsync(Get(target));

        Assert.Equal(200, response.Status);
        Assert.Equal(sum, response.BodyText);
        Assert.StartsWith("text/plain", response.Header("Content-Type"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task HeadAnswersTheFieldsOfGetWithoutTheBody()
    {
        RawResponse response = await SendAsync($"HEAD {Target} HTTP/1.1\r\nHost: t\r\n\r\n", head: true);

        Assert.Equal(200, response.Status);
        Assert.Equal("2", response.Header("Content-Length"));
        Assert.Empty(response.Body);
    }

    [Theory]
    [InlineData("20", "75")]
    [InlineData("-55", "0")]
    [InlineData(" 20\r\n", "75")]
    [InlineData("0000000000000000000000000000020", "75")]
    public async Task PostWithAContentLengthBodyAddsItsInteger(string body, string sum)
    {
        RawResponse response = await SendAsync(PostWithLength(Target, body));

        Assert.Equal(200, response.Status);
        Assert.Equal(sum, response.BodyText);
    }

    [Theory]
    [InlineData(new[] { "20" }, "75")]
    [InlineData(new[] { "1", "2", "3" }, "178")]
    public async Task PostWithAChunkedBodyAddsItsInteger(string[] chunks, string sum)
    {
        RawResponse response = await SendAsync(PostChunked(Target, chunks));

        Assert.Equal(200, response.Status);
        Assert.Equal(sum, response.BodyText);
    }

    /// <summary>Every point a Content-Length and a chunked POST can be cut at, the head included.</summary>
    public static TheoryData<string, int> SplitPosts() => SplitPoints(PostWithLength(Target, "20"), PostChunked(Target, "2", "0"));

    [Theory]
    [MemberData(nameof(SplitPosts))]
    public async Task APostSplitAnywhereIsReassembled(string request, int point)
    {
        RawResponse response = await SendSplitAsync(request, point);

        Assert.Equal(200, response.Status);
        Assert.Equal("75", response.BodyText);
    }

    [Fact]
    public async Task EachPostAnswersItsOwnBodyAndAPipelinedNeighbourFollows()
    {
        await using var connection = new PipeConnection<PlatformBenchmarks.Routing.Router>(TestRouter.Create());
        await connection.SendAsync(PostWithLength(Target, "111") + PostChunked(Target, "222") + Get("/pipeline"));

        Assert.Equal("166", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("277", (await connection.ReadAsync())!.BodyText);
        Assert.Equal("ok", (await connection.ReadAsync())!.BodyText);
    }

    [Theory]
    [InlineData("/baseline11?a=13", "Query parameter 'b' must be an integer.\n")]
    [InlineData("/baseline11?b=13", "Query parameter 'a' must be an integer.\n")]
    [InlineData("/baseline11?a=&b=1", "Query parameter 'a' must be an integer.\n")]
    [InlineData("/baseline11?a=1.5&b=1", "Query parameter 'a' must be an integer.\n")]
    [InlineData("/baseline11?a=1&b=x", "Query parameter 'b' must be an integer.\n")]
    [InlineData("/baseline11?a=1&b=1%20", "Query parameter 'b' must be an integer.\n")]
    [InlineData("/baseline11?a=99999999999999999999&b=1", "Query parameter 'a' must be an integer.\n")]
    [InlineData("/baseline11?a=9223372036854775807&b=1", "The sum does not fit in a 64-bit integer.\n")]
    [InlineData("/baseline11?a=-9223372036854775808&b=-1", "The sum does not fit in a 64-bit integer.\n")]
    [InlineData("/baseline11", "Query parameter 'a' must be an integer.\n")]
    public async Task ABadNumberInTheQueryGets400WithTheReason(string target, string reason)
    {
        RawResponse response = await SendAsync(Get(target));

        Assert.Equal(400, response.Status);
        Assert.Equal(reason, response.BodyText);
    }

    [Theory]
    [InlineData("")]
    [InlineData("twenty")]
    [InlineData("2 0")]
    [InlineData("20x")]
    [InlineData("1234567890123456789012345678901234567890")]
    [InlineData("12345678901234567890123456789012345678901234567890")]
    public async Task ABodyThatIsNoIntegerGets400AndTheConnectionGoesOn(string body)
    {
        await using var connection = new PipeConnection<PlatformBenchmarks.Routing.Router>(TestRouter.Create());
        await connection.SendAsync(PostWithLength(Target, body) + Get(Target));

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(400, response.Status);
        Assert.Equal("The body must be an integer.\n", response.BodyText);
        Assert.Equal("55", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task ABodyPushingTheSumPast64BitsGets400()
    {
        RawResponse response = await SendAsync(PostWithLength("/baseline11?a=9223372036854775800&b=7", "1"));

        Assert.Equal(400, response.Status);
        Assert.Equal("The sum does not fit in a 64-bit integer.\n", response.BodyText);
    }
}
