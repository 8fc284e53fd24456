using System.IO.Compression;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>HttpArena's json-compressed profile: <c>/json/{count}</c> in the coding Accept-Encoding asks for, per request.</summary>
public class ResponseCompressionTests
{
    private static readonly Router s_router = TestDataset.Router();

    private static Task<RawResponse> GetAsync(string fields, string target = "/json/3?m=2") => SendAsync(Get(target, fields), router: s_router);

    private static byte[] Decode(RawResponse response)
    {
        using var input = new MemoryStream(response.Body);
        using Stream decoder = response.Header("Content-Encoding") switch
        {
            "br" => new BrotliStream(input, CompressionMode.Decompress),
            "gzip" => new GZipStream(input, CompressionMode.Decompress),
            null => input,
            string other => throw new InvalidOperationException($"Unexpected coding {other}."),
        };
        using var output = new MemoryStream();
        decoder.CopyTo(output);
        return output.ToArray();
    }

    [Theory]
    [InlineData("Accept-Encoding: gzip, br\r\n", "gzip")]
    [InlineData("Accept-Encoding: br\r\n", "br")]
    [InlineData("Accept-Encoding: gzip\r\n", "gzip")]
    [InlineData("Accept-Encoding: x-gzip\r\n", "gzip")]
    [InlineData("Accept-Encoding: BR, GZIP\r\n", "gzip")]
    [InlineData("Accept-Encoding: gzip;q=0.9, br;q=1.0\r\n", "br")]
    [InlineData("Accept-Encoding: br; q=0.5, gzip ; q=0.5\r\n", "gzip")]
    [InlineData("Accept-Encoding: gzip;q=0, br\r\n", "br")]
    [InlineData("Accept-Encoding: *\r\n", "gzip")]
    [InlineData("Accept-Encoding: *;q=0.5, gzip;q=0\r\n", "br")]
    [InlineData("Accept-Encoding: deflate, br;q=0.001\r\n", "br")]
    [InlineData("Accept-Encoding: gzip;q=0.5, identity\r\n", null)]
    [InlineData("Accept-Encoding: identity\r\n", null)]
    [InlineData("Accept-Encoding: deflate\r\n", null)]
    [InlineData("Accept-Encoding: \r\n", null)]
    [InlineData("Accept-Encoding: gzip;q=0, br;q=0\r\n", null)]
    [InlineData("Accept-Encoding: identity;q=0, *;q=0\r\n", null)]
    [InlineData("Accept-Encoding: br;q=2, gzip;q=0.x\r\n", null)]
    [InlineData("Accept-Encoding: br;level=1\r\n", "br")] // a parameter other than q leaves the weight at 1
    [InlineData("Accept-Encoding: identity\r\nAccept-Encoding: gzip\r\n", "gzip")]
    [InlineData("", null)]
    public async Task TheCodingFollowsAcceptEncodingAndTheBodyDecodesToTheSameJson(string fields, string? coding)
    {
        RawResponse plain = await GetAsync("");
        RawResponse response = await GetAsync(fields);

        Assert.Equal(200, response.Status);
        Assert.Equal(coding, response.Header("Content-Encoding"));
        Assert.Equal("Accept-Encoding", response.Header("Vary"));
        Assert.Equal("application/json", response.Header("Content-Type"));
        Assert.Equal(plain.BodyText, System.Text.Encoding.UTF8.GetString(Decode(response)));
    }

    [Theory]
    [InlineData("1.000", 1000)]
    [InlineData("1", 1000)]
    [InlineData("0", 0)]
    [InlineData("0.5", 500)]
    [InlineData("0.05", 50)]
    [InlineData("0.001", 1)]
    [InlineData("0.", 0)]
    [InlineData("1.001", -1)]
    [InlineData("0.0001", -1)]
    [InlineData("2", -1)]
    [InlineData("", -1)]
    [InlineData(".5", -1)]
    [InlineData("0,5", -1)]
    public void AWeightIsReadInThousandthsAndAMalformedOneIsRefused(string value, int thousandths)
    {
        bool read = AcceptEncoding.TryWeight(System.Text.Encoding.ASCII.GetBytes($" q={value}"), out short weight);

        Assert.Equal(thousandths, read ? weight : -1);
    }

    [Theory]
    [InlineData("br")]
    [InlineData("gzip")]
    public async Task EveryCountDecodesExactlyAndHeadSendsTheFieldsWithoutTheBody(string coding)
    {
        for (int count = 0; count <= 3; count++)
        {
            RawResponse plain = await GetAsync("", $"/json/{count}?m=9");
            RawResponse compressed = await GetAsync($"Accept-Encoding: {coding}\r\n", $"/json/{count}?m=9");
            Assert.Equal(plain.Body, Decode(compressed));
        }

        RawResponse get = await GetAsync($"Accept-Encoding: {coding}\r\n");
        RawResponse head = await SendAsync($"HEAD /json/3?m=2 HTTP/1.1\r\nHost: t\r\nAccept-Encoding: {coding}\r\n\r\n", head: true, router: s_router);
        Assert.Equal(coding, head.Header("Content-Encoding"));
        Assert.Equal(get.Header("Content-Length"), head.Header("Content-Length"));
        Assert.Empty(head.Body);
    }

    [Fact]
    public async Task CodingsAreChosenPerRequestOnOneConnection()
    {
        await using var connection = new PipeConnection<Router>(s_router);
        await connection.SendAsync(Get("/json/3", "Accept-Encoding: br\r\n") + Get("/json/3") + Get("/json/3", "Accept-Encoding: gzip\r\n"));

        Assert.Equal("br", (await connection.ReadAsync())!.Header("Content-Encoding"));
        Assert.Null((await connection.ReadAsync())!.Header("Content-Encoding"));
        Assert.Equal("gzip", (await connection.ReadAsync())!.Header("Content-Encoding"));
    }

    [Fact]
    public async Task TheTfbJsonRouteStaysWithoutVaryOrCoding()
    {
        RawResponse response = await SendAsync(Get("/json", "Accept-Encoding: gzip, br\r\n"), router: s_router);

        Assert.Null(response.Header("Content-Encoding"));
        Assert.Null(response.Header("Vary"));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(100_000)]
    public void LargeAndIncompressibleBodiesFitTheirBuffer(int length) => AssertRoundTrips(new ResponseCompression(GzipLibrary.Runtime), length);

    /// <summary>Random bytes of <paramref name="length"/>, gzip and Brotli, each in a buffer of its bound, decode to themselves.</summary>
    internal static void AssertRoundTrips(ResponseCompression compression, int length)
    {
        byte[] body = new byte[length];
        new Random(7).NextBytes(body);

        byte[] destination = new byte[compression.MaxCompressedLength(ContentCoding.Gzip, length)];
        int gzip = compression.GzipTo(body, destination);
        using var gzipStream = new GZipStream(new MemoryStream(destination, 0, gzip), CompressionMode.Decompress);
        using var gzipOut = new MemoryStream();
        gzipStream.CopyTo(gzipOut);
        Assert.Equal(body, gzipOut.ToArray());

        destination = new byte[compression.MaxCompressedLength(ContentCoding.Brotli, length)];
        int brotli = ResponseCompression.Brotli(body, destination);
        byte[] decoded = new byte[length];
        Assert.True(BrotliDecoder.TryDecompress(destination.AsSpan(0, brotli), decoded, out int written));
        Assert.Equal(length, written);
        Assert.Equal(body, decoded);
    }
}
