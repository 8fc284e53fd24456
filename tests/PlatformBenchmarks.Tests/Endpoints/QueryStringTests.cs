using System.Text;
using PlatformBenchmarks.Endpoints;

namespace PlatformBenchmarks.Tests.Endpoints;

public class QueryStringTests
{
    [Theory]
    [InlineData("queries=20", "20")]
    [InlineData("a=1&queries=5&b=2", "5")]
    [InlineData("queries=%32%30", "20")]       // percent-encoded digits
    [InlineData("queries=%2b7", "+7")]         // lower-case hex
    [InlineData("queries=+2", " 2")]           // '+' is a space in a form-encoded query
    [InlineData("queries=%2", "%2")]           // a truncated escape stays as sent (and then fails to parse as a count)
    [InlineData("queries=%zz1", "%zz1")]       // so does one that is not hex
    [InlineData("queries=1&queries=2", "1")]   // the first of repeated keys
    [InlineData("queries=", "")]
    [InlineData("queries", "")]
    [InlineData("queries&queries=3", "")]      // a bare key counts as present and empty
    [InlineData("xqueries=3", "")]             // the name must match whole
    [InlineData("queriesx=3", "")]
    [InlineData("Queries=3", "")]              // and in its case
    [InlineData("", "")]
    [InlineData("&&queries=4&&", "4")]
    public void TheFirstValueOfTheNameIsReturnedDecoded(string query, string expected)
    {
        Span<byte> scratch = stackalloc byte[32];

        ReadOnlySpan<byte> value = QueryString.GetValue(Encoding.ASCII.GetBytes(query), "queries"u8, scratch);

        Assert.Equal(expected, Encoding.ASCII.GetString(value));
    }

    [Fact]
    public void AnEncodedValueLongerThanTheScratchBufferIsReturnedAsSent()
    {
        string raw = string.Concat(Enumerable.Repeat("%31", 20));
        Span<byte> scratch = stackalloc byte[8];

        ReadOnlySpan<byte> value = QueryString.GetValue(Encoding.ASCII.GetBytes("queries=" + raw), "queries"u8, scratch);

        Assert.Equal(raw, Encoding.ASCII.GetString(value));
    }
}
