using System.Buffers;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Unicode;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.Tfb.Templates;

namespace PlatformBenchmarks.Benchmarks.Serialization;

/// <summary>
/// Rendering the fortunes page (the 12 TFB rows plus the request-time one, sorted, with escaping) into a reused
/// buffer: the compiled template (<see cref="Fortunes.Render"/>) against a naive <see cref="StringBuilder"/> with
/// <see cref="HtmlEncoder"/> and a final UTF-8 encoding as the baseline. The baseline's encoder allows every Unicode
/// range, so it too keeps the Japanese row and the em dashes raw, as TFB requires. <see cref="TemplateWithHtmlEncoder"/>
/// is the same compiled template with the messages escaped by that <see cref="HtmlEncoder"/> (configured as the
/// reference entry configures its own) instead of <see cref="HtmlWriter"/>: it measures the escaper alone.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Serialization)]
public class FortunesRenderingBenchmarks
{
    private static readonly HtmlEncoder s_encoder = HtmlEncoder.Create(UnicodeRanges.All);

    private readonly ArrayBufferWriter<byte> _buffer = new(4096);
    private List<Fortune> _fortunes = [];

    [GlobalSetup]
    public void Setup()
    {
        _fortunes =
        [
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
            new(12, "\u30d5\u30ec\u30fc\u30e0\u30ef\u30fc\u30af\u306e\u30d9\u30f3\u30c1\u30de\u30fc\u30af"),
        ];
        Fortune.AddAdditionalAndSort(_fortunes);

        CompiledTemplate();
        string page = Encoding.UTF8.GetString(_buffer.WrittenSpan);
        FixtureCheck.That(page.Contains("<tr><td>11</td><td>&lt;script&gt;", StringComparison.Ordinal), "the template escapes the script row");
        FixtureCheck.That(page.Contains("\u30d5\u30ec\u30fc\u30e0", StringComparison.Ordinal), "the template keeps the Japanese row raw");
        StringBuilderAndHtmlEncoder();
        page = Encoding.UTF8.GetString(_buffer.WrittenSpan);
        FixtureCheck.That(page.Contains("\u2014 Donald Knuth", StringComparison.Ordinal), "the baseline keeps the em dash raw");
        TemplateWithHtmlEncoder();
        string withEncoder = Encoding.UTF8.GetString(_buffer.WrittenSpan);
        CompiledTemplate();
        // HtmlEncoder escapes more (&#x2B; for '+', &#x27; for '\''): compared as the text a browser shows.
        FixtureCheck.That(
            System.Net.WebUtility.HtmlDecode(withEncoder) == System.Net.WebUtility.HtmlDecode(Encoding.UTF8.GetString(_buffer.WrittenSpan)),
            "the template renders the same page with either escaper");
    }

    [Benchmark(Baseline = true)]
    public int StringBuilderAndHtmlEncoder()
    {
        _buffer.ResetWrittenCount();
        var html = new StringBuilder("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>");
        foreach (Fortune fortune in _fortunes)
        {
            html.Append("<tr><td>").Append(fortune.Id).Append("</td><td>").Append(s_encoder.Encode(fortune.Message)).Append("</td></tr>");
        }

        html.Append("</table></body></html>");
        string text = html.ToString();
        Span<byte> span = _buffer.GetSpan(Encoding.UTF8.GetMaxByteCount(text.Length));
        int written = Encoding.UTF8.GetBytes(text, span);
        _buffer.Advance(written);
        return written;
    }

    [Benchmark]
    public int CompiledTemplate()
    {
        _buffer.ResetWrittenCount();
        Fortunes.Render(_buffer, _fortunes);
        return _buffer.WrittenCount;
    }

    [Benchmark]
    public int TemplateWithHtmlEncoder()
    {
        _buffer.ResetWrittenCount();
        Fortunes.Template.Render(_buffer, _fortunes, default(HtmlEncoderBinder));
        return _buffer.WrittenCount;
    }

    /// <summary>The endpoint's binder with the message escaped by <see cref="HtmlEncoder"/> into UTF-16, then encoded.</summary>
    private readonly struct HtmlEncoderBinder : IRowBinder<Fortune>
    {
        public void WriteField(int field, in Fortune row, IBufferWriter<byte> output)
        {
            if (field == 0)
            {
                HtmlWriter.WriteInt32(output, row.Id);
                return;
            }

            Span<char> escaped = stackalloc char[row.Message.Length * 6];
            s_encoder.Encode(row.Message, escaped, out _, out int written);
            Span<byte> span = output.GetSpan(Encoding.UTF8.GetMaxByteCount(written));
            output.Advance(Encoding.UTF8.GetBytes(escaped[..written], span));
        }
    }
}
