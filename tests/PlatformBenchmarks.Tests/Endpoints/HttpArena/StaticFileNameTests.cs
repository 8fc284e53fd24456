using System.Text;
using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>The names a /static/ request may ask for: plain names only, escaped or not; nothing that leaves the directory.</summary>
public class StaticFileNameTests
{
    private static string? Decode(string raw)
    {
        Span<char> name = stackalloc char[StaticFileName.MaxLength];
        return StaticFileName.TryDecode(Encoding.UTF8.GetBytes(raw), name, out int length) ? name[..length].ToString() : null;
    }

    [Theory]
    [InlineData("reset.css", "reset.css")]
    [InlineData("icon-sprite.svg", "icon-sprite.svg")]
    [InlineData("fonts/bold.woff2", "fonts/bold.woff2")]
    [InlineData("a%20b.css", "a b.css")]
    [InlineData("%72eset.css", "reset.css")]
    [InlineData("caf%C3%A9.css", "café.css")]
    [InlineData("..css", "..css")]
    [InlineData("...", "...")]
    [InlineData(".hidden", ".hidden")]
    [InlineData("a+b.css", "a+b.css")]
    public void APlainNameIsDecoded(string raw, string expected)
    {
        Assert.Equal(expected, Decode(raw));
    }

    public static TheoryData<string> Escapes => new()
    {
        "",
        "..",
        "../etc/passwd",
        "../../etc/passwd",
        "a/../../etc/passwd",
        "a/..",
        ".",
        "./reset.css",
        "a/./b",
        "%2e%2e/etc/passwd",
        "%2E%2E%2Fetc%2Fpasswd",
        ".%2e/etc/passwd",
        "%2e./etc/passwd",
        "..%2f..%2fetc%2fpasswd",
        "%252e%252e/x/../../etc/passwd",
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
        "//etc/passwd",
        "a//b",
        "a/",
        "..\\etc\\passwd",
        "a%5c..%5cb",
        "reset.css%00.png",
        "reset.css\u0000",
        "a%0Ab",
        "a%7Fb",
        "a%",
        "a%2",
        "a%zz",
        "%C3",
        "%FF%FE",
        "%C0%AE%C0%AE/etc/passwd",
    };

    [Theory]
    [MemberData(nameof(Escapes))]
    public void ANameThatCouldLeaveTheDirectoryOrIsMalformedIsRefused(string raw)
    {
        Assert.Null(Decode(raw));
    }

    [Fact]
    public void ADoublyEscapedDotIsAPlainNameNotADot()
    {
        // %252e decodes once, to the three characters "%2e": a name, never decoded a second time.
        Assert.Equal("%2e%2e", Decode("%252e%252e"));
    }

    [Fact]
    public void ANameLongerThanTheLimitIsRefused()
    {
        Assert.NotNull(Decode(new string('a', StaticFileName.MaxLength)));
        Assert.Null(Decode(new string('a', StaticFileName.MaxLength + 1)));
    }
}
