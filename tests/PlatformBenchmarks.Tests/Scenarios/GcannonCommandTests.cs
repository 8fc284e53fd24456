using System.Text;
using System.Text.Json;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>
/// What the load runner has gcannon send for HttpArena's profiles (scenarios/loadrun/gcannon.py), through its
/// gcannon-command command: the command line of each profile, as the venue's scripts/lib/tools/gcannon.sh writes it, and
/// the template files it writes, which hold the bytes of the venue's requests/ files.
/// </summary>
public sealed class GcannonCommandTests : IDisposable
{
    private const string Url = "http://127.0.0.1:9100";

    // The limits of the venue's async-db templates, in its order.
    private static readonly int[] s_asyncDbLimits = [5, 10, 20, 35, 50];

    private readonly string _folder = Directory.CreateTempSubdirectory("gcannon-command-test-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private async Task<string[]> CommandAsync(string test, string url = Url)
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "gcannon-command", test, url, "256", "1", "8", _folder], TimeSpan.FromMinutes(1));
        Assert.True(result.ExitCode == 0, result.ToString());
        return JsonSerializer.Deserialize<string[]>(result.Output)!;
    }

    private string Template(string name) => Encoding.Latin1.GetString(File.ReadAllBytes(Path.Join(_folder, "templates", name)));

    public static TheoryData<string, string[]> Commands => new()
    {
        // The templates in turn (--raw), the pipeline depth always given (-p 1), and -r only where the profile reconnects.
        { "baseline", [Url, "--raw", "templates/baseline-1.raw,templates/baseline-2.raw,templates/baseline-3.raw", "-c", "256", "-t", "1", "-d", "8s", "-p", "1", "--json"] },
        { "limited-conn", [Url, "--raw", "templates/limited-conn-1.raw,templates/limited-conn-2.raw,templates/limited-conn-3.raw", "-c", "256", "-t", "1", "-d", "8s", "-p", "1", "-r", "10", "--json"] },
        // The venue names /pipeline in the URL and has gcannon build the GET itself.
        { "pipelined", [Url + "/pipeline", "-c", "256", "-t", "1", "-d", "8s", "-p", "16", "--json"] },
        { "json-arena", [Url, "--raw", string.Join(',', Enumerable.Range(1, 7).Select(i => $"templates/json-arena-{i}.raw")), "-c", "256", "-t", "1", "-d", "8s", "-p", "1", "-r", "25", "--json"] },
        { "json-comp", [Url, "--raw", "templates/json-comp-1.raw,templates/json-comp-2.raw,templates/json-comp-3.raw", "-c", "256", "-t", "1", "-d", "8s", "-p", "1", "-r", "25", "--json"] },
        { "async-db", [Url, "--raw", string.Join(',', Enumerable.Range(1, 5).Select(i => $"templates/async-db-{i}.raw")), "-c", "256", "-t", "1", "-d", "8s", "-p", "1", "-r", "25", "--json"] },
        { "echo-ws", [Url + "/ws", "--ws", "-c", "256", "-t", "1", "-d", "8s", "-p", "1", "--json"] },
    };

    [Theory]
    [MemberData(nameof(Commands))]
    public async Task EachProfileRunsWithTheVenuesArguments(string test, string[] arguments)
    {
        string[] command = await CommandAsync(test);

        Assert.Equal(["gcannon", .. arguments], command);
        // Every template the command names was written, relative to the folder gcannon runs in.
        string[] templates = command.SkipWhile(word => word != "--raw").Skip(1).Take(1).SelectMany(list => list.Split(',')).ToArray();
        Assert.All(templates, name => Assert.True(File.Exists(Path.Join(_folder, name)), name));
    }

    [Fact]
    public async Task ABaseUrlWithATrailingSlashNamesTheSameServer()
    {
        Assert.Equal(Url, (await CommandAsync("baseline", Url + "/"))[1]);
        Assert.Equal(Url + "/pipeline", (await CommandAsync("pipelined", Url + "/"))[1]);
    }

    [Fact]
    public async Task BaselinesTemplatesAreTheVenuesGetPostWithContentLengthAndChunkedPost()
    {
        await CommandAsync("baseline");

        // requests/get.raw, post_cl.raw and post_chunked.raw, byte for byte: the venue's Host whatever the server's port.
        Assert.Equal("GET /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost:8080\r\n\r\n", Template("baseline-1.raw"));
        Assert.Equal("POST /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost:8080\r\nContent-Length: 2\r\n\r\n20", Template("baseline-2.raw"));
        Assert.Equal("POST /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost:8080\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n20\r\n0\r\n\r\n", Template("baseline-3.raw"));
    }

    [Fact]
    public async Task TheJsonAndDatabaseTemplatesAreTheVenuesInItsOrderWithItsHeaders()
    {
        await CommandAsync("json-arena");
        await CommandAsync("json-comp");
        await CommandAsync("async-db");

        // requests/json-{1,5,10,15,25,40,50}.raw, json-gzip-{25,40,50}.raw and async-db-{5,10,20,35,50}.raw.
        (int Count, int M)[] pairs = [(1, 3), (5, 7), (10, 2), (15, 5), (25, 4), (40, 8), (50, 6)];
        Assert.Equal(pairs.Select(p => $"GET /json/{p.Count}?m={p.M} HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"),
            Enumerable.Range(1, 7).Select(i => Template($"json-arena-{i}.raw")));
        Assert.Equal(pairs[4..].Select(p => $"GET /json/{p.Count}?m={p.M} HTTP/1.1\r\nHost: localhost:8080\r\nAccept-Encoding: gzip, br\r\n\r\n"),
            Enumerable.Range(1, 3).Select(i => Template($"json-comp-{i}.raw")));
        Assert.Equal(s_asyncDbLimits.Select(limit => $"GET /async-db?min=10&max=50&limit={limit} HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"),
            Enumerable.Range(1, 5).Select(i => Template($"async-db-{i}.raw")));
    }

    [Fact]
    public async Task TheServerAnswersEachBaselineTemplateWithItsSum()
    {
        await CommandAsync("limited-conn");

        string[] bodies = new string[3];
        for (int i = 0; i < 3; i++)
        {
            RawResponse response = await SendAsync(Template($"limited-conn-{i + 1}.raw"));
            Assert.Equal(200, response.Status);
            bodies[i] = response.BodyText;
        }

        Assert.Equal(["55", "75", "75"], bodies);
    }

    [Theory]
    [InlineData("static")]
    [InlineData("upload")]
    [InlineData("json-tls")]
    [InlineData("plaintext")]
    public async Task AProfileTheVenueDrivesWithAnotherToolIsRefused(string test)
    {
        ProcessResult result = await ChildProcess.RunAsync("python3", ["scenarios/loadrun", "gcannon-command", test, Url, "256", "1", "8", _folder], TimeSpan.FromMinutes(1));

        Assert.True(result.ExitCode == 2, result.ToString());
        Assert.Contains($"{test} is not a test gcannon drives", result.Error, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Join(_folder, "templates")));
    }
}
