using System.Buffers;
using System.Text;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.Tfb.Templates;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints.Templates;

public class HtmlWriterTests
{
    private static string Encoded(string text)
    {
        var output = new ArrayBufferWriter<byte>();
        HtmlWriter.WriteEncoded(output, text);
        return Encoding.UTF8.GetString(output.WrittenSpan);
    }

    [Theory]
    [InlineData("&", "&amp;")]
    [InlineData("<", "&lt;")]
    [InlineData(">", "&gt;")]
    [InlineData("\"", "&quot;")]
    [InlineData("'", "&#39;")]
    [InlineData("<script>alert(\"x\");</script>", "&lt;script&gt;alert(&quot;x&quot;);&lt;/script&gt;")]
    [InlineData("a&&b", "a&amp;&amp;b")]
    [InlineData("", "")]
    public void EveryCharacterThatMustBeEscapedIsEscaped(string text, string expected)
    {
        Assert.Equal(expected, Encoded(text));
    }

    [Fact]
    public void EveryOtherPrintableAsciiCharacterIsWrittenAsItIs()
    {
        string ascii = new([.. Enumerable.Range(0x20, 0x7f - 0x20).Select(c => (char)c).Where(c => !"&<>\"'".Contains(c, StringComparison.Ordinal))]);

        Assert.Equal(ascii, Encoded(ascii));
    }

    [Theory]
    [InlineData("é")]                            // two UTF-8 bytes
    [InlineData("— Donald Knuth")]               // U+2014, three bytes: TFB's check drops a numeric reference for it
    [InlineData("フレームワークのベンチマーク")]   // three bytes each
    [InlineData("😀")]                            // a surrogate pair, four bytes
    public void NonAsciiTextIsWrittenAsRawUtf8(string text)
    {
        var output = new ArrayBufferWriter<byte>();
        HtmlWriter.WriteEncoded(output, text);

        Assert.Equal(Encoding.UTF8.GetBytes(text), output.WrittenSpan.ToArray());
    }

    [Fact]
    public void EscapesBetweenMultiByteCharactersLeaveThemWhole()
    {
        Assert.Equal("フ&lt;—&amp;😀&gt;é", Encoded("フ<—&😀>é"));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(12)]
    [InlineData(-1)]
    [InlineData(int.MaxValue)]
    [InlineData(int.MinValue)]
    public void IntegersAreWrittenInInvariantDecimal(int value)
    {
        var output = new ArrayBufferWriter<byte>();
        HtmlWriter.WriteInt32(output, value);

        Assert.Equal(value.ToString(System.Globalization.CultureInfo.InvariantCulture), Encoding.ASCII.GetString(output.WrittenSpan));
    }

    [Fact]
    public void TheFortunesPageIsTfbsPageByteForByte()
    {
        // TFB's rows, plus the request-time fortune, sorted as the endpoint sorts them.
        var fortunes = new List<Fortune>(TfbFortunes.Rows);
        Fortune.AddAdditionalAndSort(fortunes);
        var output = new ArrayBufferWriter<byte>();

        Fortunes.Render(output, fortunes);

        Assert.Equal(TfbFortunes.ExpectedPage, Encoding.UTF8.GetString(output.WrittenSpan));
    }
}
