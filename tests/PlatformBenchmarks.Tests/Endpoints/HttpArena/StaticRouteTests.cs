using System.Text;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>GET /static/{file} through the server's router, as HttpArena's static validation checks it and beyond.</summary>
public sealed class StaticRouteTests : IDisposable
{
    private readonly StaticDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private async Task<RawResponse> GetAsync(string target, string fields = "", string method = "GET")
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create(arena: new HttpArenaRoutes(Dataset.Unavailable("not served here"), HttpArenaOptions.DefaultMaxUploadSize, _directory.Files)));
        await connection.SendAsync($"{method} {target} HTTP/1.1\r\nHost: t\r\n{fields}\r\n");
        return (await connection.ReadAsync(head: method == "HEAD"))!;
    }

    public static TheoryData<string, string> Types => new()
    {
        { "reset.css", "text/css; charset=utf-8" },
        { "app.js", "text/javascript; charset=utf-8" },
        { "manifest.json", "application/json" },
        { "header.html", "text/html; charset=utf-8" },
        { "logo.svg", "image/svg+xml" },
        { "bold.woff2", "font/woff2" },
        { "hero.webp", "image/webp" },
        { "THUMB.WEBP", "image/webp" },
        { "data.bin", "application/octet-stream" },
        { "noextension", "application/octet-stream" },
    };

    [Theory]
    [MemberData(nameof(Types))]
    public async Task EachFileIsServedWholeWithTheTypeOfItsExtension(string name, string contentType)
    {
        byte[] content = _directory.Write(name, Enumerable.Range(0, 10_000).Select(i => (byte)i).ToArray());

        RawResponse response = await GetAsync($"/static/{name}");

        Assert.Equal(200, response.Status);
        Assert.Equal(contentType, response.Header("Content-Type"));
        Assert.Equal(content, response.Body);
        Assert.Null(response.Header("Content-Encoding"));
        Assert.Null(response.Header("Vary"));
    }

    [Theory]
    [InlineData("br;q=1, gzip;q=0.8", "br")]
    [InlineData("deflate, gzip, br, zstd", "br")]
    [InlineData("gzip", "gzip")]
    [InlineData("br;q=0.5, gzip", "gzip")]
    [InlineData("", null)]
    [InlineData("identity", null)]
    public async Task AFileWithTwinsIsServedAsTheOneTheClientPrefers(string acceptEncoding, string? coding)
    {
        byte[] content = _directory.Write("vendor.js", string.Concat(Enumerable.Repeat("function f(a) { return a * 2; }\n", 2000)), twins: true);

        RawResponse response = await GetAsync("/static/vendor.js", acceptEncoding.Length == 0 ? "" : $"Accept-Encoding: {acceptEncoding}\r\n");

        Assert.Equal(200, response.Status);
        Assert.Equal("Accept-Encoding", response.Header("Vary"));
        Assert.Equal(coding, response.Header("Content-Encoding"));
        Assert.Equal(response.Body.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), response.Header("Content-Length"));
        byte[] decoded = coding switch
        {
            "br" => StaticDirectory.Unbrotli(response.Body),
            "gzip" => StaticDirectory.Ungzip(response.Body),
            _ => response.Body,
        };
        Assert.Equal(content, decoded);
        Assert.True(coding is null || response.Body.Length < content.Length);
    }

    [Fact]
    public async Task HeadGetsTheFieldsOfGetWithoutTheBody()
    {
        _directory.Write("router.js", new string('x', 50_000), twins: true);

        RawResponse get = await GetAsync("/static/router.js", "Accept-Encoding: br\r\n");
        RawResponse head = await GetAsync("/static/router.js", "Accept-Encoding: br\r\n", "HEAD");

        Assert.Equal(200, head.Status);
        Assert.Empty(head.Body);
        Assert.Equal(get.Header("Content-Length"), head.Header("Content-Length"));
        Assert.Equal("br", head.Header("Content-Encoding"));
        Assert.Equal(get.Header("Content-Type"), head.Header("Content-Type"));
    }

    [Theory]
    [InlineData("/static/nonexistent.txt")]
    [InlineData("/static/..%2fsecret%2fpasswd")]
    [InlineData("/static/%2e%2e/secret/passwd")]
    [InlineData("/static/../secret/passwd")]
    [InlineData("/static//etc/passwd")]
    [InlineData("/static/%2Fetc%2Fpasswd")]
    [InlineData("/static/reset.css%00")]
    [InlineData("/static/sub")]
    [InlineData("/static/reset.css.br.missing")]
    public async Task ANameThatIsNoFileOrLeavesTheDirectoryGets404(string target)
    {
        _directory.Write("reset.css", "body {}");
        Directory.CreateDirectory(Path.Join(_directory.Served, "sub"));

        RawResponse response = await GetAsync(target);

        Assert.Equal(404, response.Status);
        Assert.Equal("Not found.\n", response.BodyText);
    }

    [Fact]
    public async Task ALinkToAFileOutsideGets404()
    {
        File.CreateSymbolicLink(Path.Join(_directory.Served, "passwd"), Path.Join(_directory.Outside, "passwd"));

        Assert.Equal(404, (await GetAsync("/static/passwd")).Status);
    }

    [Fact]
    public async Task TheQueryIsNotPartOfTheName()
    {
        _directory.Write("reset.css", "body {}");

        Assert.Equal("body {}", (await GetAsync("/static/reset.css?v=3")).BodyText);
    }

    [Fact]
    public async Task AChangeOnDiskIsServedOnceTheCopyIsDue()
    {
        _directory.Write("theme.css", "a {}");
        Assert.Equal("a {}", (await GetAsync("/static/theme.css")).BodyText);

        _directory.Change("theme.css", "a { color: red }", DateTime.UtcNow.AddMinutes(1));
        Assert.Equal("a {}", (await GetAsync("/static/theme.css")).BodyText);
        _directory.Time.Advance(StaticFiles.RecheckInterval);

        Assert.Equal("a { color: red }", (await GetAsync("/static/theme.css")).BodyText);
    }

    [Theory]
    [InlineData("POST")]
    [InlineData("DELETE")]
    [InlineData("OPTIONS")]
    public async Task OtherMethodsGet405WithAllow(string method)
    {
        _directory.Write("reset.css", "body {}");

        RawResponse response = await GetAsync("/static/reset.css", method: method);

        Assert.Equal(405, response.Status);
        Assert.Equal("GET, HEAD", response.Header("Allow"));
    }

    [Theory]
    [InlineData("/static")]
    [InlineData("/static/")]
    [InlineData("/staticx/reset.css")]
    public async Task TheFolderItselfIsNoRoute(string target)
    {
        Assert.Equal(404, (await GetAsync(target)).Status);
    }

    [Fact]
    public async Task WithoutAStoreEveryFileIs404()
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync("GET /static/reset.css HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal(404, (await connection.ReadAsync())!.Status);
    }

    [Fact]
    public async Task APipelinedNeighbourFollowsALargeFile()
    {
        byte[] content = _directory.Write("big.js", Encoding.ASCII.GetBytes(new string('j', 300_000)));
        await using var connection = new PipeConnection<Router>(TestRouter.Create(arena: new HttpArenaRoutes(Dataset.Unavailable("not served here"), HttpArenaOptions.DefaultMaxUploadSize, _directory.Files)));
        await connection.SendAsync("GET /static/big.js HTTP/1.1\r\nHost: t\r\n\r\nGET /static/big.js HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.Equal(content, (await connection.ReadAsync())!.Body);
        Assert.Equal(content, (await connection.ReadAsync())!.Body);
    }
}
