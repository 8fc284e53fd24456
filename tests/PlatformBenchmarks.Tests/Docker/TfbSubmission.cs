using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>One TFB test type as benchmark_config.json names it, with the URL this server serves it on.</summary>
internal sealed record TfbUrl(string Type, string Key, string TomlKey, string Url, int MinimumLength, bool IsPrefix, string ContentType);

/// <summary>The TFB submission in docker/tfb and the rules TFB's toolset applies to it (docs/tfb-rules.md §1, §3).</summary>
internal static class TfbSubmission
{
    private const string Json = @"^application/json(; ?charset=(UTF|utf)-8)?$";

    /// <summary>The seven test types. Prefix URLs get the count appended by the harness (/queries/ + 20).</summary>
    public static readonly IReadOnlyList<TfbUrl> Urls =
    [
        new("plaintext", "plaintext_url", "urls.plaintext", "/plaintext", 10, false, @"^text/plain(; ?charset=(UTF|utf)-8)?$"),
        new("json", "json_url", "urls.json", "/json", 5, false, Json),
        new("db", "db_url", "urls.db", "/db", 3, false, Json),
        new("query", "query_url", "urls.query", "/queries/", 9, true, Json),
        new("update", "update_url", "urls.update", "/updates/", 8, true, Json),
        new("fortune", "fortune_url", "urls.fortune", "/fortunes", 9, false, @"^text/html; ?charset=(UTF|utf)-8$"),
        new("cached-query", "cached_query_url", "urls.cached_query", "/cached-worlds/", 15, true, Json),
    ];

    public static string Folder => Repository.PathOf("docker", "tfb");

    public static JsonDocument LoadConfig() => JsonDocument.Parse(Repository.ReadText("docker", "tfb", "benchmark_config.json"));

    /// <summary>The test entries: TFB's format is an array holding one object of tests by name.</summary>
    public static IReadOnlyList<(string Name, JsonElement Test)> Tests(JsonDocument config) =>
        [.. config.RootElement.GetProperty("tests").EnumerateArray().SelectMany(group => group.EnumerateObject()).Select(p => (p.Name, p.Value))];

    /// <summary>Where TFB looks for a test's dockerfile: the framework name, plus "-test" for any test but "default".</summary>
    public static string DockerfileOf(string framework, string test) =>
        Path.Combine(Folder, test == "default" ? $"{framework}.dockerfile" : $"{framework}-{test}.dockerfile");
}
