using System.Buffers;
using System.Buffers.Text;
using System.Text;

namespace PlatformBenchmarks.Endpoints.Tfb.Templates;

/// <summary>
/// Writes template values as UTF-8 HTML text. Only <c>&amp; &lt; &gt; " '</c> are escaped: every other character,
/// non-ASCII included, is written as raw UTF-8. (TFB's fortunes check drops numeric references it does not know,
/// so the Japanese row and the em dashes must stay raw; .NET's default HtmlEncoder would turn them into references.)
/// Kept over an <c>HtmlEncoder</c> configured to pass every range through because it renders the fortunes page in less
/// time, allocating nothing either way (docs/decisions/0008-measured-code-choices.md).
/// </summary>
internal static class HtmlWriter
{
    private static readonly SearchValues<char> s_special = SearchValues.Create("&<>\"'");

    public static void WriteEncoded(IBufferWriter<byte> output, ReadOnlySpan<char> text)
    {
        while (!text.IsEmpty)
        {
            int special = text.IndexOfAny(s_special);
            ReadOnlySpan<char> plain = special < 0 ? text : text[..special];
            if (!plain.IsEmpty)
            {
                WriteUtf8(output, plain);
            }

            if (special < 0)
            {
                return;
            }

            output.Write(Escape(text[special]));
            text = text[(special + 1)..];
        }
    }

    public static void WriteInt32(IBufferWriter<byte> output, int value)
    {
        Span<byte> span = output.GetSpan(11);
        Utf8Formatter.TryFormat(value, span, out int written);
        output.Advance(written);
    }

    private static void WriteUtf8(IBufferWriter<byte> output, ReadOnlySpan<char> text)
    {
        Span<byte> span = output.GetSpan(Encoding.UTF8.GetMaxByteCount(text.Length));
        output.Advance(Encoding.UTF8.GetBytes(text, span));
    }

    private static ReadOnlySpan<byte> Escape(char c) => c switch
    {
        '&' => "&amp;"u8,
        '<' => "&lt;"u8,
        '>' => "&gt;"u8,
        '"' => "&quot;"u8,
        _ => "&#39;"u8,
    };
}
