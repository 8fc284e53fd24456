using System.Text;
using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>The store behind /static/: what it serves, what it refuses, and how soon it sees a change on disk.</summary>
public sealed class StaticFilesTests : IDisposable
{
    private readonly StaticDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private async Task<string?> ReadAsync(string name)
        => await _directory.Files.GetAsync(name) is { } file ? Encoding.UTF8.GetString(file.Content) : null;

    [Fact]
    public async Task AFileIsReadWithItsTwins()
    {
        byte[] content = _directory.Write("app.js", "let a = 1;\n".PadRight(4000, ' '), twins: true);

        StaticFile file = (await _directory.Files.GetAsync("app.js"))!;

        Assert.Equal(content, file.Content);
        Assert.Equal(content, StaticDirectory.Unbrotli(file.Brotli!));
        Assert.Equal(content, StaticDirectory.Ungzip(file.Gzip!));
        Assert.Equal("text/javascript; charset=utf-8", Encoding.ASCII.GetString(file.ContentType));
    }

    [Fact]
    public async Task ATwinThatDoesNotDecompressToTheFileIsNotServed()
    {
        _directory.Write("reset.css", "body { margin: 0 }\n", twins: true);
        _directory.Write("reset.css.br", StaticDirectory.Brotli(Encoding.UTF8.GetBytes("body { margin: 1 }\n")));
        _directory.Write("reset.css.gz", "not gzip at all");

        StaticFile file = (await _directory.Files.GetAsync("reset.css"))!;

        Assert.Null(file.Brotli);
        Assert.Null(file.Gzip);
    }

    [Fact]
    public async Task AMissingFileOrADirectoryIsNoFile()
    {
        Directory.CreateDirectory(Path.Join(_directory.Served, "fonts"));

        Assert.Null(await _directory.Files.GetAsync("nonexistent.txt"));
        Assert.Null(await _directory.Files.GetAsync("fonts"));
    }

    [Fact]
    public async Task AMissingDirectoryServesNothing()
    {
        var files = new StaticFiles(Path.Join(_directory.Base, "absent"), _directory.Time);

        Assert.Null(await files.GetAsync("reset.css"));
        Assert.Contains("MISSING", files.Describe(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AChangedFileIsServedChangedOnceItsCopyIsDueForACheck()
    {
        _directory.Write("theme.css", "old");
        Assert.Equal("old", await ReadAsync("theme.css"));
        _directory.Change("theme.css", "new content", DateTime.UtcNow.AddMinutes(1));

        // Within the interval the held copy is served without looking at the disk.
        _directory.Time.Advance(StaticFiles.RecheckInterval - TimeSpan.FromMilliseconds(1));
        Assert.True(_directory.Files.TryGetFresh("theme.css", out StaticFile? fresh));
        Assert.Equal("old", Encoding.UTF8.GetString(fresh.Content));

        _directory.Time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.False(_directory.Files.TryGetFresh("theme.css", out _));
        Assert.Equal("new content", await ReadAsync("theme.css"));
        Assert.True(_directory.Files.TryGetFresh("theme.css", out fresh));
        Assert.Equal("new content", Encoding.UTF8.GetString(fresh.Content));
    }

    [Fact]
    public async Task AnUnchangedFileIsKeptAfterItsCheck()
    {
        _directory.Write("layout.css", "same");
        StaticFile first = (await _directory.Files.GetAsync("layout.css"))!;

        _directory.Time.Advance(StaticFiles.RecheckInterval * 3);

        Assert.Same(first, await _directory.Files.GetAsync("layout.css"));
    }

    [Fact]
    public async Task ADeletedFileIsForgottenAtItsCheck()
    {
        _directory.Write("footer.html", "<footer/>");
        Assert.NotNull(await _directory.Files.GetAsync("footer.html"));

        File.Delete(Path.Join(_directory.Served, "footer.html"));
        _directory.Time.Advance(StaticFiles.RecheckInterval);

        Assert.Null(await _directory.Files.GetAsync("footer.html"));
        Assert.False(_directory.Files.TryGetFresh("footer.html", out _));
    }

    [Fact]
    public async Task ATwinAddedLaterIsServedAfterTheCheck()
    {
        byte[] content = _directory.Write("logo.svg", "<svg/>".PadRight(2000, ' '));
        Assert.Null((await _directory.Files.GetAsync("logo.svg"))!.Brotli);

        _directory.Write("logo.svg.br", StaticDirectory.Brotli(content));
        _directory.Time.Advance(StaticFiles.RecheckInterval);

        Assert.Equal(content, StaticDirectory.Unbrotli((await _directory.Files.GetAsync("logo.svg"))!.Brotli!));
    }

    public static TheoryData<string, string, bool> Links => new()
    {
        // name of the link under the served folder, its target (relative to the link's folder, or absolute), served?
        { "inside.css", "real.css", true },
        { "sub/inside.css", "../real.css", true },
        { "chain.css", "inside-link.css", true },
        { "passwd", "../secret/passwd", false },
        { "abs-passwd", "{outside}/passwd", false },
        { "sub/deep", "../../secret/passwd", false },
        { "out-and-back.css", "../secret/../static/real.css", true },
        { "loop-a", "loop-b", false },
    };

    [Theory]
    [MemberData(nameof(Links))]
    public async Task ALinkIsServedOnlyWhenItsTargetLiesWithinTheDirectory(string link, string target, bool served)
    {
        _directory.Write("real.css", "p {}");
        File.CreateSymbolicLink(Path.Join(_directory.Served, "inside-link.css"), "real.css");
        File.CreateSymbolicLink(Path.Join(_directory.Served, "loop-b"), "loop-a");
        string linkPath = Path.Join(_directory.Served, link);
        Directory.CreateDirectory(Path.GetDirectoryName(linkPath)!);
        File.CreateSymbolicLink(linkPath, target.Replace("{outside}", _directory.Outside, StringComparison.Ordinal));

        Assert.Equal(served ? "p {}" : null, await ReadAsync(link));
    }

    [Fact]
    public async Task AFolderLinkPointingOutsideIsNotFollowedOut()
    {
        Directory.CreateSymbolicLink(Path.Join(_directory.Served, "escape"), _directory.Outside);

        Assert.Null(await ReadAsync("escape/passwd"));
    }

    [Fact]
    public async Task TheServedDirectoryMayItselfBeALink()
    {
        _directory.Write("real.css", "p {}");
        string linked = Path.Join(_directory.Base, "linked");
        Directory.CreateSymbolicLink(linked, _directory.Served);
        var files = new StaticFiles(linked, _directory.Time);

        Assert.NotNull(await files.GetAsync("real.css"));
        Assert.Null(await files.GetAsync("../secret/passwd"));
    }
}
