using System.Net.Http;
using System.Net;
using System.Net.Http.Headers;
using System.Text.Json;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Scenarios;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>
/// Every URL the TFB submission and the crank scenarios send load to is served with 200, TFB's headers and the body
/// TFB's verifier accepts for that test type (docs/tfb-rules.md §4). Among
/// them are update URLs, which change world rows: these tests run in the world-table collection, with a server of
/// their own, so they never run while another test compares the table before and after its own updates.
/// </summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class SubmissionUrlTests(ServerFixture server) : IClassFixture<ServerFixture>
{
    private const string AcceptJson = "application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7";
    private const string AcceptPlaintext = "text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7";

    /// <summary>
    /// benchmark_config.json's URLs (a prefix URL both bare, as TFB's status check requests it, and with the
    /// verifier's count 20), and the paths of the crank scenarios.
    /// </summary>
    public static TheoryData<string, string> Urls()
    {
        var urls = new SortedSet<(string Type, string Path)>();
        using (JsonDocument config = TfbSubmission.LoadConfig())
        {
            foreach ((string _, JsonElement test) in TfbSubmission.Tests(config))
            {
                foreach (TfbUrl url in TfbSubmission.Urls)
                {
                    string path = test.GetProperty(url.Key).GetString()!;
                    urls.Add((url.Type, path));
                    if (url.IsPrefix)
                    {
                        urls.Add((url.Type, path + "20"));
                    }
                }
            }
        }

        foreach ((string scenario, string path) in CrankFiles.LoadPaths())
        {
            urls.Add((CrankFiles.TfbTypeOf(scenario), path));
        }

        var data = new TheoryData<string, string>();
        foreach ((string type, string path) in urls)
        {
            data.Add(type, path);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Urls))]
    public async Task TheServerAnswersTheUrlWithTfbsStatusAndHeaders(string type, string path)
    {
        TfbUrl url = TfbSubmission.Urls.Single(u => u.Type == type);
        using var client = new HttpClient { BaseAddress = server.BaseAddress };
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        request.Headers.TryAddWithoutValidation("Accept", type == "plaintext" ? AcceptPlaintext : AcceptJson);

        using HttpResponseMessage response = await client.SendAsync(request);
        string body = await response.Content.ReadAsStringAsync();

        Assert.True(response.StatusCode == HttpStatusCode.OK, $"GET {path} ({type}) answered {(int)response.StatusCode}: {body}");
        Assert.NotEmpty(response.Headers.GetValues("Server"));
        Assert.NotNull(response.Headers.Date);
        MediaTypeHeaderValue? contentType = response.Content.Headers.ContentType;
        Assert.NotNull(contentType);
        Assert.Matches(url.ContentType, contentType.ToString());
        Assert.True(response.Content.Headers.ContentLength is not null || response.Headers.TransferEncodingChunked == true, "neither Content-Length nor chunked");
        AssertTfbsBody(type, path, body);
    }

    /// <summary>The body TFB's verifier expects of each test type (docs/tfb-rules.md §4).</summary>
    private static void AssertTfbsBody(string type, string path, string body)
    {
        switch (type)
        {
            case "plaintext":
                Assert.Equal("Hello, World!", body);
                break;
            case "json":
                Assert.Equal("{\"message\":\"Hello, World!\"}", body);
                break;
            case "db":
                using (var world = JsonDocument.Parse(body))
                {
                    AssertWorld(world.RootElement);
                }

                break;
            case "fortune":
                Assert.Equal(TfbFortunes.ExpectedPage, body);
                break;
            default:
                using (var worlds = JsonDocument.Parse(body))
                {
                    Assert.Equal(JsonValueKind.Array, worlds.RootElement.ValueKind);
                    Assert.Equal(ExpectedCount(path), worlds.RootElement.GetArrayLength());
                    Assert.All(worlds.RootElement.EnumerateArray(), AssertWorld);
                }

                break;
        }
    }

    private static void AssertWorld(JsonElement world)
    {
        Assert.Equal(JsonValueKind.Object, world.ValueKind);
        Assert.Equal(["id", "randomNumber"], world.EnumerateObject().Select(p => p.Name));
        Assert.InRange(world.GetProperty("id").GetInt32(), 1, 10000);
        Assert.InRange(world.GetProperty("randomNumber").GetInt32(), 1, 10000);
    }

    /// <summary>The row count a prefix URL asks for: the number it ends with, TFB's sanitising applied (1 without one).</summary>
    private static int ExpectedCount(string path)
    {
        int digits = path.Length;
        while (digits > 0 && char.IsAsciiDigit(path[digits - 1]))
        {
            digits--;
        }

        return digits == path.Length ? 1 : Math.Clamp(int.Parse(path[digits..], System.Globalization.CultureInfo.InvariantCulture), 1, 500);
    }
}
