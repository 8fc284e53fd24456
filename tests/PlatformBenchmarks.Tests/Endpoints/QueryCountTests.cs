using System.Text;
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
    public void CountParameterIsSanitisedAsTfbRequires(string raw, int expected)
        => Assert.Equal(expected, QueryCount.Clamp(Encoding.UTF8.GetBytes(raw)));

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
