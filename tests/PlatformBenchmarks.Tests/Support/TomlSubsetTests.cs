namespace PlatformBenchmarks.Tests.Support;

public class TomlSubsetTests
{
    [Fact]
    public void TablesAndDottedKeysReadAsFlatKeys()
    {
        Dictionary<string, Dictionary<string, string>> tables = TomlSubset.Parse("""
            # comment
            [framework]
            name = "x"  # trailing
            [main]
            urls.plaintext = "/plaintext"
            port = 8080
            quoted = "a \"b\""
            """);

        Assert.Equal("x", tables["framework"]["name"]);
        Assert.Equal("/plaintext", tables["main"]["urls.plaintext"]);
        Assert.Equal("8080", tables["main"]["port"]);
        Assert.Equal("a \"b\"", tables["main"]["quoted"]);
    }

    [Theory]
    [InlineData("a = [1, 2]")]
    [InlineData("a = { b = 1 }")]
    [InlineData("a = 'literal'")]
    [InlineData("a = \"\"\"multi\"\"\"")]
    [InlineData("[t]\n[t]")]
    [InlineData("a = 1\na = 2")]
    [InlineData("[[array]]")]
    public void AnythingOutsideTheSubsetIsRejected(string toml) => Assert.Throws<FormatException>(() => TomlSubset.Parse(toml));
}
