using System.Text;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Endpoints;

namespace PlatformBenchmarks.Tests.Endpoints;

public class QueryCountTests
{
    [Theory]
    // The verifier's own cases (docs/tfb-rules.md §4.3).
    [InlineData("2", 2)]
    [InlineData("0", 1)]
    [InlineData("foo", 1)]
    [InlineData("501", 500)]
    [InlineData("", 1)]
    // The rest of §5.
    [InlineData("-5", 1)]
    [InlineData("2147483648", 500)]
    [InlineData("99999999999999999999999", 500)]
    [InlineData("-2147483649", 1)]
    [InlineData("100000", 500)]
    [InlineData("1", 1)]
    [InlineData("20", 20)]
    [InlineData("500", 500)]
    [InlineData("007", 7)]
    [InlineData("+15", 15)]
    [InlineData(" 10 ", 10)]
    [InlineData("-", 1)]
    [InlineData("5a", 1)]
    [InlineData("1.5", 1)]
    [InlineData("+-5", 1)]                       // one sign at most
    [InlineData("--5", 1)]
    [InlineData("+", 1)]
    [InlineData("-0", 1)]
    [InlineData("1 0", 1)]                       // blanks only around the number
    [InlineData("\t7\t", 7)]
    [InlineData("0500", 500)]
    [InlineData("00000000000000000000012", 12)] // leading zeros do not count toward overflow
    [InlineData("\u0663", 1)]                    // a non-ASCII digit (ARABIC-INDIC THREE) is not a digit here
    [InlineData("\uFF15", 1)]                    // nor is a full-width one
    public void CountParameterIsSanitisedAsTfbRequires(string raw, int expected)
        => Assert.Equal(expected, QueryCount.Clamp(Encoding.UTF8.GetBytes(raw)));

    /// <summary>The query form as a client sends it: percent-decoded first (QueryString), then sanitised.</summary>
    [Theory]
    [InlineData("queries=%2D5", 1)]
    [InlineData("queries=+5", 5)]                 // '+' decodes to a blank, which the count then trims
    [InlineData("queries=%20%2B12", 12)]
    [InlineData("queries=%35%30%31", 500)]
    [InlineData("queries=5%00", 1)]
    [InlineData("queries=%", 1)]
    [InlineData("queries=", 1)]
    [InlineData("queries=7&queries=600", 7)]      // the first of repeated keys
    [InlineData("count=9", 1)]                    // another name: the count is missing
    public void AQueryCountIsDecodedThenSanitised(string query, int expected)
    {
        Span<byte> scratch = stackalloc byte[32];

        Assert.Equal(expected, QueryCount.Clamp(QueryString.GetValue(Encoding.ASCII.GetBytes(query), "queries"u8, scratch)));
    }

    [Fact]
    public void ClampingAllocatesNothing()
    {
        ReadOnlySpan<byte> value = "2147483648"u8;
        QueryCount.Clamp(value);
        long before = GC.GetAllocatedBytesForCurrentThread();
        int sum = 0;
        for (int i = 0; i < 1000; i++)
        {
            sum += QueryCount.Clamp(value) + QueryCount.Clamp("foo"u8);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(501_000, sum);
    }
}
