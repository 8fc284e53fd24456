using System.Text;
using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>Accept-Encoding read as RFC 9110 §12.5.3 says, and the coding chosen from the twins a file has.</summary>
public class AcceptEncodingTests
{
    private static ContentCoding Choose(string[] fields, bool brotli = true, bool gzip = true)
    {
        AcceptEncoding accepted = AcceptEncoding.None;
        foreach (string field in fields)
        {
            accepted = accepted.Add(Encoding.ASCII.GetBytes(field));
        }

        return accepted.Choose(brotli, gzip);
    }

    [Theory]
    // The venue's load and curl --compressed.
    [InlineData("br;q=1, gzip;q=0.8", "Brotli")]
    [InlineData("deflate, gzip, br, zstd", "Brotli")]
    [InlineData("gzip", "Gzip")]
    [InlineData("x-gzip", "Gzip")]
    [InlineData("GZIP", "Gzip")]
    [InlineData("br", "Brotli")]
    // Weights decide; equal weights prefer the smaller body.
    [InlineData("br;q=0.5, gzip;q=0.8", "Gzip")]
    [InlineData("gzip;q=0.8, br;q=0.8", "Brotli")]
    [InlineData("gzip;q=0.5, identity", "Identity")]
    [InlineData("gzip, identity;q=1", "Gzip")]
    [InlineData("br;q=0.001", "Brotli")]
    [InlineData("gzip;q=0.5, identity;q=0.4", "Gzip")]
    [InlineData("br;q=0.001, identity;q=0", "Brotli")]
    [InlineData("br;q=0, gzip;q=0", "Identity")]
    [InlineData("br;q=0", "Identity")]
    // The wildcard stands for what is not listed.
    [InlineData("*", "Brotli")]
    [InlineData("*;q=0.5, br;q=0", "Gzip")]
    [InlineData("*;q=0", "Identity")]
    [InlineData("identity", "Identity")]
    // Empty: only identity; malformed weights: the member is ignored.
    [InlineData("", "Identity")]
    [InlineData(" , ,", "Identity")]
    [InlineData("br;q=2", "Identity")]
    [InlineData("br;q=1.5", "Identity")]
    [InlineData("br;q=0.1234", "Identity")]
    [InlineData("br;q=abc", "Identity")]
    [InlineData("br;q=", "Identity")]
    [InlineData("br;q=-1, gzip", "Gzip")]
    // Valid forms of a weight and other parameters.
    [InlineData("br;q=1.000", "Brotli")]
    [InlineData("br;q=1.", "Brotli")]
    [InlineData("gzip;q=0., br ; Q=0.9", "Brotli")]
    [InlineData("br;level=5", "Brotli")]
    [InlineData("br\t;\tq=0.9", "Brotli")]
    [InlineData("compress, deflate", "Identity")]
    public void OneFieldChoosesTheCodingOfHighestWeight(string field, string expected)
    {
        Assert.Equal(expected, Choose([field]).ToString());
    }

    [Fact]
    public void NoFieldMeansIdentity()
    {
        Assert.Equal(ContentCoding.Identity, Choose([]));
    }

    [Fact]
    public void SeveralFieldsMakeOneList()
    {
        Assert.Equal(ContentCoding.Gzip, Choose(["br;q=0.1", "gzip;q=0.9"]));
    }

    [Theory]
    [InlineData("br;q=1, gzip;q=0.8", false, true, "Gzip")]
    [InlineData("br;q=1, gzip;q=0.8", true, false, "Brotli")]
    [InlineData("br;q=1, gzip;q=0.8", false, false, "Identity")]
    [InlineData("br", false, true, "Identity")]
    public void OnlyTheTwinsThatExistAreChosen(string field, bool brotli, bool gzip, string expected)
    {
        Assert.Equal(expected, Choose([field], brotli, gzip).ToString());
    }
}
