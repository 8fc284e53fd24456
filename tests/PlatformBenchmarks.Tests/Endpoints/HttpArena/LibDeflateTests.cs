using System.IO.Compression;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>
/// gzip through the system's libdeflate, which scripts/test.sh installs (Debian's libdeflate0): these tests need it, as
/// the load-runner tests need wrk, so they run with the System tests.
/// </summary>
[Trait(TestCategory.Name, TestCategory.System)]
public class LibDeflateTests
{
    private static byte[] Gunzip(ReadOnlySpan<byte> gzip)
    {
        using var input = new GZipStream(new MemoryStream(gzip.ToArray()), CompressionMode.Decompress);
        using var output = new MemoryStream();
        input.CopyTo(output);
        return output.ToArray();
    }

    [Fact]
    public void TheLibraryLoadsAndAutoChoosesIt()
    {
        Assert.True(LibDeflate.IsAvailable, LibDeflate.LoadFailure);

        var compression = new ResponseCompression(GzipLibrary.Auto);

        Assert.Equal(GzipLibrary.LibDeflate, compression.Gzip);
        Assert.Contains(LibDeflate.Library, compression.Description, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(100_000)]
    [InlineData(3_000_000)]
    public void LargeAndIncompressibleBodiesFitTheirBound(int length) => ResponseCompressionTests.AssertRoundTrips(new ResponseCompression(GzipLibrary.LibDeflate), length);

    [Fact]
    public void ADestinationBelowTheBoundIsRefusedAndNothingPastItIsWritten()
    {
        using var compressor = new LibDeflate.GzipCompressor(ResponseCompression.LibDeflateGzipLevel);
        byte[] body = new byte[4096];
        new Random(3).NextBytes(body);
        byte[] buffer = new byte[body.Length + 64];
        Array.Fill(buffer, (byte)0xA5);
        int room = body.Length / 2;

        Assert.Throws<ArgumentException>(() => compressor.Compress(body, buffer.AsSpan(0, room)));
        Assert.All(buffer[room..], b => Assert.Equal(0xA5, b));
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(13)]
    public void ALevelLibDeflateDoesNotHaveIsRefused(int level)
        => Assert.Throws<ArgumentOutOfRangeException>(() => new LibDeflate.GzipCompressor(level));

    [Fact]
    public async Task ThreadsCompressingAtOnceEachGetTheirOwnBodyBack()
    {
        var compression = new ResponseCompression(GzipLibrary.LibDeflate);
        Task[] workers = Enumerable.Range(0, 8).Select(worker => Task.Factory.StartNew(() =>
        {
            var random = new Random(worker);
            for (int i = 0; i < 200; i++)
            {
                // Text-like bodies of varied lengths, distinct per worker and call, so a crossed state would show.
                byte[] body = System.Text.Encoding.ASCII.GetBytes(string.Concat(Enumerable.Range(0, random.Next(1, 400)).Select(n => $"{{\"w\":{worker},\"i\":{i},\"n\":{n * random.Next(1000)}}}")));
                byte[] destination = new byte[compression.MaxCompressedLength(ContentCoding.Gzip, body.Length)];
                int length = compression.GzipTo(body, destination);
                Assert.Equal(body, Gunzip(destination.AsSpan(0, length)));
            }
        }, TaskCreationOptions.LongRunning)).ToArray();

        await Task.WhenAll(workers);
    }

    [Fact]
    public async Task TheJsonRouteSendsLibDeflatesGzipOfTheIdentityBody()
    {
        Router router = TestDataset.Router(compression: new ResponseCompression(GzipLibrary.LibDeflate));

        RawResponse plain = await SendAsync(Get("/json/3?m=4", ""), router: router);
        RawResponse gzip = await SendAsync(Get("/json/3?m=4", "Accept-Encoding: gzip, br\r\n"), router: router);

        Assert.Equal("gzip", gzip.Header("Content-Encoding"));
        Assert.Equal(plain.Body, Gunzip(gzip.Body));
    }
}
