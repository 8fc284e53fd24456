using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>HttpArena's upload profile: <c>POST /upload</c> answers how many body bytes it read.</summary>
public class UploadTests
{
    private static string Head(long length) => $"POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: application/octet-stream\r\nContent-Length: {length}\r\n\r\n";

    [Theory]
    [InlineData("Hello, HttpArena!")]
    [InlineData("x")]
    [InlineData("")]
    public async Task ASmallBodyIsCounted(string body)
    {
        RawResponse response = await SendAsync(Head(body.Length) + body);

        Assert.Equal(200, response.Status);
        Assert.Equal(body.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), response.BodyText);
        Assert.StartsWith("text/plain", response.Header("Content-Type"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AChunkedBodyCountsItsDataAndNotItsFraming()
    {
        RawResponse response = await SendAsync(PostChunked("/upload", "abc", new string('z', 5000), "\r\n"));

        Assert.Equal("5005", response.BodyText);
    }

    /// <summary>Every point a small Content-Length and chunked upload can be cut at.</summary>
    public static TheoryData<string, int> SplitUploads() => SplitPoints(Head(11) + "hello world", PostChunked("/upload", "hello", " world"));

    [Theory]
    [MemberData(nameof(SplitUploads))]
    public async Task AnUploadSplitAnywhereCountsTheSame(string request, int point)
    {
        Assert.Equal("11", (await SendSplitAsync(request, point)).BodyText);
    }

    [Theory]
    [InlineData(512_000)]
    [InlineData(20 * 1024 * 1024)]
    public async Task TheVenuesSizesPastTheGeneralBodyLimitAreCountedAsTheyArrive(int size)
    {
        Assert.True(size > new HttpLimits().MaxRequestBodySize || size == 512_000);
        byte[] body = new byte[size];
        new Random(size).NextBytes(body);
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync(Requests.Bytes(Head(size)));
        for (int offset = 0; offset < size; offset += 1 << 20)
        {
            await connection.SendAsync(body[offset..Math.Min(size, offset + (1 << 20))]);
        }

        await connection.SendAsync(Get("/pipeline"));

        Assert.Equal(size.ToString(System.Globalization.CultureInfo.InvariantCulture), (await connection.ReadAsync())!.BodyText);
        Assert.Equal("ok", (await connection.ReadAsync())!.BodyText);
    }

    [Fact]
    public async Task AnUploadIsAnsweredOnlyOnceItsBodyHasEnded()
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync(Head(10) + "12345");
        await connection.ExaminedAllSentAsync();
        Task<RawResponse?> response = connection.ReadAsync();
        await Task.Yield();
        Assert.False(response.IsCompleted);

        await connection.SendAsync("67890" + Head(3) + "abc");

        Assert.Equal("10", (await response)!.BodyText);
        Assert.Equal("3", (await connection.ReadAsync())!.BodyText);
    }

    [Theory]
    [InlineData(false, 100, 200)]
    [InlineData(false, 101, 413)]
    [InlineData(true, 100, 200)]
    [InlineData(true, 101, 413)]
    public async Task TheUploadLimitIsItsOwnSetting(bool chunked, int size, int status)
    {
        await using var connection = new PipeConnection<Router>(TestDataset.Router(maxUploadSize: 100), new HttpLimits { MaxRequestBodySize = 10, LingerTimeout = TimeSpan.Zero });
        string body = new('u', size);
        await connection.SendAsync(chunked ? PostChunked("/upload", body) : Head(size) + body);

        Assert.Equal(status, (await connection.ReadAsync())!.Status);
    }

    [Fact]
    public async Task OtherRoutesKeepTheGeneralBodyLimit()
    {
        await using var connection = new PipeConnection<Router>(TestDataset.Router(maxUploadSize: 100), new HttpLimits { MaxRequestBodySize = 10, LingerTimeout = TimeSpan.Zero });
        await connection.SendAsync(PostWithLength("/baseline11?a=1&b=2", "00000000003"));

        Assert.Equal(413, (await connection.ReadAsync())!.Status);
    }
}
