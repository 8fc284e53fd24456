using System.Buffers;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Unicode;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.Templates;

namespace PlatformBenchmarks.Benchmarks.Serialization;

/// <summary>
/// Rendering the fortunes page (the 12 TFB rows plus the request-time one, sorted, with escaping) into a reused
/// buffer: the compiled template with this project's writer (<see cref="Fortunes.Render"/>); the same compiled
/// template with <see cref="HtmlEncoder"/> writing each message as UTF-8 into the same buffer (the encoder the
/// reference ASP.NET entry configures); and, as the baseline, a naive <see cref="StringBuilder"/> with
/// <see cref="HtmlEncoder"/> and a final UTF-8 encoding. Both encoders allow every Unicode range, so they keep the
/// Japanese row and the em dashes raw, as TFB requires; HtmlEncoder also escapes '+' (as <c>&amp;#x2B;</c>).
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Serialization)]
public class FortunesRenderingBenchmarks
{
    private static readonly HtmlEncoder s_encoder = HtmlEncoder.Create(new TextEncoderSettings(UnicodeRanges.All));

    /// <summary>The server's own fortunes markup, compiled as the server compiles it.</summary>
    private static readonly HtmlTemplate s_template = CompileServersTemplate();

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
        string baseline = page;
        HtmlEncoderIntoBuffer();
        page = Encoding.UTF8.GetString(_buffer.WrittenSpan);
        FixtureCheck.That(page == baseline, "the template with HtmlEncoder writes the baseline's page");
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
    public int HtmlEncoderIntoBuffer()
    {
        _buffer.ResetWrittenCount();
        s_template.Render(_buffer, _fortunes, default(HtmlEncoderBinder));
        return _buffer.WrittenCount;
    }

    [Benchmark]
    public int CompiledTemplate()
    {
        _buffer.ResetWrittenCount();
        Fortunes.Render(_buffer, _fortunes);
        return _buffer.WrittenCount;
    }

    private static HtmlTemplate CompileServersTemplate()
    {
        using Stream stream = typeof(Fortunes).Assembly.GetManifestResourceStream("PlatformBenchmarks.Endpoints.Templates.fortunes.html")
            ?? throw new InvalidOperationException("The fortunes template is not embedded in the server.");
        using var reader = new StreamReader(stream);
        return HtmlTemplate.Compile(reader.ReadToEnd(), "id", "message");
    }

    /// <summary>Writes the id as the template does and the message through <see cref="HtmlEncoder.EncodeUtf8"/>.</summary>
    private readonly struct HtmlEncoderBinder : IRowBinder<Fortune>
    {
        public void WriteField(int field, in Fortune row, IBufferWriter<byte> output)
        {
            if (field == 0)
            {
                HtmlWriter.WriteInt32(output, row.Id);
                return;
            }

            // Messages arrive from Npgsql as strings: transcode, then escape straight into the output.
            Span<byte> utf8 = stackalloc byte[1024];
            int length = Encoding.UTF8.GetBytes(row.Message, utf8);
            ReadOnlySpan<byte> source = utf8[..length];
            while (true)
            {
                OperationStatus status = s_encoder.EncodeUtf8(source, output.GetSpan(source.Length * 2), out int consumed, out int written);
                output.Advance(written);
                if (status == OperationStatus.Done)
                {
                    return;
                }

                source = source[consumed..];
            }
        }
    }
}
