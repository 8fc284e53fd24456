using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>One TFB test type as benchmark_config.json names it, with the URL this server serves it on.</summary>
internal sealed record TfbUrl(string Type, string Key, string Url, bool IsPrefix, string ContentType);

/// <summary>The TFB submission in docker/tfb and where TFB's toolset looks for its parts (docs/tfb-rules.md §1, §3).</summary>
internal static class TfbSubmission
{
    private const string Json = @"^application/json(; ?charset=(UTF|utf)-8)?$";

    /// <summary>The seven test types. Prefix URLs get the count appended by the harness (/queries/ + 20).</summary>
    public static readonly IReadOnlyList<TfbUrl> Urls =
    [
        new("plaintext", "plaintext_url", "/plaintext", false, @"^text/plain(; ?charset=(UTF|utf)-8)?$"),
        new("json", "json_url", "/json", false, Json),
        new("db", "db_url", "/db", false, Json),
        new("query", "query_url", "/queries/", true, Json),
        new("update", "update_url", "/updates/", true, Json),
        new("fortune", "fortune_url", "/fortunes", false, @"^text/html; ?charset=(UTF|utf)-8$"),
        new("cached-query", "cached_query_url", "/cached-worlds/", true, Json),
    ];

    public static string Folder => Repository.PathOf("docker", "tfb");

    public static JsonDocument LoadConfig() => JsonDocument.Parse(Repository.ReadText("docker", "tfb", "benchmark_config.json"));

    /// <summary>The test entries: TFB's format is an array holding one object of tests by name.</summary>
    public static IReadOnlyList<(string Name, JsonElement Test)> Tests(JsonDocument config) =>
        [.. config.RootElement.GetProperty("tests").EnumerateArray().SelectMany(group => group.EnumerateObject()).Select(p => (p.Name, p.Value))];

    /// <summary>Where TFB looks for a test's dockerfile: the framework name, plus "-test" for any test but "default".</summary>
    public static string DockerfileOf(string framework, string test) =>
        Path.Combine(Folder, test == "default" ? $"{framework}.dockerfile" : $"{framework}-{test}.dockerfile");

    /// <summary>The dockerfile of every test in benchmark_config.json, by test name.</summary>
    public static IReadOnlyList<(string Test, string Dockerfile)> Dockerfiles()
    {
        using JsonDocument config = LoadConfig();
        string framework = config.RootElement.GetProperty("framework").GetString()!;
        return [.. Tests(config).Select(t => (t.Name, DockerfileOf(framework, t.Name)))];
    }
}
