using System.Buffers;
using System.Text;
using PlatformBenchmarks.Endpoints.Tfb.Templates;

namespace PlatformBenchmarks.Tests.Endpoints.Templates;

public class HtmlTemplateTests
{
    /// <summary>Writes a row's fields as "[slot:value]", so a test sees which slot each hole was bound to.</summary>
    private readonly struct SlotBinder : IRowBinder<(string A, string B)>
    {
        public void WriteField(int field, in (string A, string B) row, IBufferWriter<byte> output) =>
            output.Write(Encoding.UTF8.GetBytes($"[{field}:{(field == 0 ? row.A : row.B)}]"));
    }

    private static string Render(string markup, params (string A, string B)[] rows)
    {
        var output = new ArrayBufferWriter<byte>();
        HtmlTemplate.Compile(markup, "a", "b").Render(output, [.. rows], default(SlotBinder));
        return Encoding.UTF8.GetString(output.WrittenSpan);
    }

    [Theory]
    [InlineData("<h>{{#rows}}<r>{{a}}|{{b}}</r>{{/rows}}<t>", "<h><r>[0:x]|[1:y]</r><r>[0:z]|[1:w]</r><t>")]
    [InlineData("{{#rows}}{{ b }}{{a}}{{/rows}}", "[1:y][0:x][1:w][0:z]")]     // spaces inside a hole, holes side by side, any order
    [InlineData("{{#rows}}{{a}}{{a}}{{/rows}}", "[0:x][0:x][0:z][0:z]")]       // a field used twice
    [InlineData("é{{#rows}}—{{/rows}}😀", "é——😀")]                         // literals are written as UTF-8, without holes too
    public void EveryRowRepeatsTheSectionWithItsFieldsInTheirHoles(string markup, string expected)
    {
        Assert.Equal(expected, Render(markup, ("x", "y"), ("z", "w")));
    }

    [Fact]
    public void NoRowsLeaveOnlyTheHeadAndTheTail()
    {
        Assert.Equal("<h><t>", Render("<h>{{#rows}}<r>{{a}}</r>{{/rows}}<t>"));
    }

    [Theory]
    [InlineData("<p>no section</p>", "{{#rows}}")]
    [InlineData("{{/rows}}{{#rows}}", "{{#rows}}")]
    [InlineData("{{a}}{{#rows}}{{/rows}}", "only supported inside")]
    [InlineData("{{#rows}}{{/rows}}{{b}}", "only supported inside")]
    [InlineData("{{#rows}}{{a{{/rows}}", "Unclosed")]
    [InlineData("{{#rows}}{{c}}{{/rows}}", "Unknown field 'c'")]
    public void AMalformedTemplateIsRefusedWithTheReason(string markup, string reason)
    {
        FormatException error = Assert.Throws<FormatException>(() => HtmlTemplate.Compile(markup, "a", "b"));

        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }
}
