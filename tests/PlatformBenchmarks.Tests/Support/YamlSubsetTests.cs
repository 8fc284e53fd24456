namespace PlatformBenchmarks.Tests.Support;

public class YamlSubsetTests
{
    [Fact]
    public void MappingsSequencesAndScalarsReadAsYamlReadsThem()
    {
        const string yaml = """
            # a comment
            name: value  # trailing comment
            quoted: 'it''s: fine # not a comment'
            double: "a \"b\" c"
            url: http://localhost:5010
            empty:
            list:
              - one
              - 'two: 2'
            same-indent-list:
            - three
            items:
              - key: a
                other: b
              - key: c
            nested:
              deeper:
                leaf: 1
            none: []
            """;

        Dictionary<string, object?> document = Assert.IsType<Dictionary<string, object?>>(YamlSubset.Parse(yaml));

        Assert.Equal("value", document["name"]);
        Assert.Equal("it's: fine # not a comment", document["quoted"]);
        Assert.Equal("a \"b\" c", document["double"]);
        Assert.Equal("http://localhost:5010", document["url"]);
        Assert.Null(document["empty"]);
        Assert.Equal(["one", "two: 2"], Assert.IsType<List<object?>>(document["list"]));
        Assert.Equal(["three"], Assert.IsType<List<object?>>(document["same-indent-list"]));
        List<object?> items = Assert.IsType<List<object?>>(document["items"]);
        Assert.Equal("b", Assert.IsType<Dictionary<string, object?>>(items[0])["other"]);
        Assert.Equal("c", Assert.IsType<Dictionary<string, object?>>(items[1])["key"]);
        Dictionary<string, object?> deeper = Assert.IsType<Dictionary<string, object?>>(Assert.IsType<Dictionary<string, object?>>(document["nested"])["deeper"]);
        Assert.Equal("1", deeper["leaf"]);
        Assert.Empty(Assert.IsType<List<object?>>(document["none"]));
    }

    [Theory]
    [InlineData("a:\n\tb: c", "tabs")]
    [InlineData("a: &anchor b", "anchor")]
    [InlineData("a: *alias", "alias")]
    [InlineData("a: !tag b", "tag")]
    [InlineData("a: [b, c]", "flow collection")]
    [InlineData("a: {b: c}", "flow collection")]
    [InlineData("a: |\n  text", "block scalar")]
    [InlineData("a: b\n  continued", "indentation")]
    [InlineData("a: b: c", "plain scalar")]
    [InlineData("a: 1\na: 2", "duplicate key")]
    [InlineData("---\na: 1", "document markers")]
    [InlineData("a: 'unterminated", "quoted scalar")]
    [InlineData("a:\n    b: 1\n  c: 2", "indentation")]
    [InlineData("- a\nb: c", "indentation")]
    public void AnythingOutsideTheSubsetIsRejectedWithItsLine(string yaml, string reason)
    {
        FormatException error = Assert.Throws<FormatException>(() => YamlSubset.Parse(yaml));

        Assert.StartsWith("YAML line ", error.Message, StringComparison.Ordinal);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }
}
