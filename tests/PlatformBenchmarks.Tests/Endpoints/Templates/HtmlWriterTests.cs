using System.Buffers;
using System.Text;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.Templates;

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
        var fortunes = new List<Fortune>
        {
            new(1, "fortune: No such file or directory"),
            new(2, "A computer scientist is someone who fixes things that aren't broken."),
            new(3, "After enough decimal places, nobody gives a damn."),
            new(4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"),
            new(5, "A computer program does what you tell it to do, not what you want it to do."),
            new(6, "Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen"),
            new(7, "Any program that runs right is obsolete."),
            new(8, "A list is only as strong as its weakest link. \u2014 Donald Knuth"),
            new(9, "Feature: A bug with seniority."),
            new(10, "Computers make very fast, very accurate mistakes."),
            new(11, "<script>alert(\"This should not be displayed in a browser alert box.\");</script>"),
            new(12, "フレームワークのベンチマーク"),
        };
        Fortune.AddAdditionalAndSort(fortunes);
        var output = new ArrayBufferWriter<byte>();

        Fortunes.Render(output, fortunes);

        // The expected page, written out independently of the template (TFB's fortunes page, whitespace-free).
        string expected =
            "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>"
            + "<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>"
            + "<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>"
            + "<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>"
            + "<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>"
            + "<tr><td>8</td><td>A list is only as strong as its weakest link. \u2014 Donald Knuth</td></tr>"
            + "<tr><td>0</td><td>Additional fortune added at request time.</td></tr>"
            + "<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>"
            + "<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>"
            + "<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>"
            + "<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen</td></tr>"
            + "<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>"
            + "<tr><td>1</td><td>fortune: No such file or directory</td></tr>"
            + "<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>"
            + "</table></body></html>";
        Assert.Equal(expected, Encoding.UTF8.GetString(output.WrittenSpan));
    }
}
