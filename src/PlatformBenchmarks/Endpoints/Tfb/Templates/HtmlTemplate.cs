using System.Buffers;
using System.Text;

namespace PlatformBenchmarks.Endpoints.Tfb.Templates;

/// <summary>Writes one field of a row; a struct, so the template's loop calls it directly.</summary>
/// <typeparam name="TRow">The row type.</typeparam>
internal interface IRowBinder<TRow>
{
    void WriteField(int field, in TRow row, IBufferWriter<byte> output);
}

/// <summary>
/// A small compiled HTML template: markup with <c>{{name}}</c> holes and one repeated section
/// <c>{{#rows}}…{{/rows}}</c>. Compiling splits the markup once into UTF-8 literal runs and field slots, so rendering
/// is a loop of copies and field writes, and the markup stays separate from the data loop.
/// </summary>
internal sealed class HtmlTemplate
{
    private readonly byte[] _head;
    private readonly byte[][] _rowLiterals;
    private readonly int[] _rowFields;
    private readonly byte[] _tail;

    private HtmlTemplate(byte[] head, byte[][] rowLiterals, int[] rowFields, byte[] tail)
    {
        _head = head;
        _rowLiterals = rowLiterals;
        _rowFields = rowFields;
        _tail = tail;
    }

    /// <summary>Compiles <paramref name="markup"/>; <paramref name="fields"/> names the holes the section may use, by slot.</summary>
    public static HtmlTemplate Compile(string markup, params string[] fields)
    {
        ArgumentNullException.ThrowIfNull(markup);
        ArgumentNullException.ThrowIfNull(fields);
        const string Open = "{{#rows}}";
        const string Close = "{{/rows}}";
        int open = markup.IndexOf(Open, StringComparison.Ordinal);
        int close = markup.IndexOf(Close, StringComparison.Ordinal);
        if (open < 0 || close < open)
        {
            throw new FormatException("The template needs one {{#rows}}…{{/rows}} section.");
        }

        string head = markup[..open];
        string section = markup[(open + Open.Length)..close];
        string tail = markup[(close + Close.Length)..];
        if (head.Contains("{{", StringComparison.Ordinal) || tail.Contains("{{", StringComparison.Ordinal))
        {
            throw new FormatException("Holes are only supported inside the rows section.");
        }

        var literals = new List<byte[]>();
        var slots = new List<int>();
        int position = 0;
        while (true)
        {
            int start = section.IndexOf("{{", position, StringComparison.Ordinal);
            if (start < 0)
            {
                literals.Add(Encoding.UTF8.GetBytes(section[position..]));
                break;
            }

            int end = section.IndexOf("}}", start, StringComparison.Ordinal);
            if (end < 0)
            {
                throw new FormatException("Unclosed hole in the template.");
            }

            string name = section[(start + 2)..end].Trim();
            int slot = Array.IndexOf(fields, name);
            if (slot < 0)
            {
                throw new FormatException($"Unknown field '{name}' in the template.");
            }

            literals.Add(Encoding.UTF8.GetBytes(section[position..start]));
            slots.Add(slot);
            position = end + 2;
        }

        return new HtmlTemplate(Encoding.UTF8.GetBytes(head), [.. literals], [.. slots], Encoding.UTF8.GetBytes(tail));
    }

    public void Render<TRow, TBinder>(IBufferWriter<byte> output, List<TRow> rows, TBinder binder)
        where TBinder : struct, IRowBinder<TRow>
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(rows);
        output.Write(_head);
        byte[][] literals = _rowLiterals;
        int[] fields = _rowFields;
        foreach (TRow row in rows)
        {
            for (int i = 0; i < fields.Length; i++)
            {
                output.Write(literals[i]);
                binder.WriteField(fields[i], in row, output);
            }

            output.Write(literals[^1]);
        }

        output.Write(_tail);
    }
}
