using System.Text.Json;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>
/// The check TFB's toolset applies to each test of a benchmark_config.json before it runs anything
/// (toolset/utils/metadata.py, <c>validate_test</c> and <c>validate_urls</c>), restated here: values compared without
/// case, a missing key read as "none".
/// </summary>
internal static class TfbMetadata
{
    private static readonly string[] s_urls = ["json_url", "db_url", "query_url", "fortune_url", "update_url", "plaintext_url", "cached_query_url"];

    private static readonly string[] s_os = ["Linux", "Windows"];

    /// <summary>Key → (values allowed, or null for any; the key that makes it required, "" for always, null for never).</summary>
    private static readonly Dictionary<string, (string[]? Allowed, string? RequiredWith)> s_schema = new()
    {
        ["language"] = (null, ""),
        ["webserver"] = (null, null),
        ["classification"] = (["Fullstack", "Micro", "Platform"], null),
        ["database"] = (["MySQL", "Postgres", "MongoDB", "None"], null),
        ["approach"] = (["Realistic", "Stripped"], null),
        ["orm"] = (["Full", "Micro", "Raw"], "database"),
        ["platform"] = (null, null),
        ["framework"] = (null, null),
        ["os"] = (s_os, null),
        ["database_os"] = (s_os, "database"),
    };

    /// <summary>What the toolset would refuse in <paramref name="test"/>, one line per key; empty when it accepts it.</summary>
    public static IReadOnlyList<string> Problems(string name, JsonElement test)
    {
        var problems = new List<string>();
        foreach (string key in s_urls)
        {
            if (test.TryGetProperty(key, out JsonElement url) && url.GetString()?.StartsWith('/') != true)
            {
                problems.Add($"`{key}` of test {name} is not a URL path: {url.GetRawText()}");
            }
        }

        foreach ((string key, (string[]? allowed, string? requiredWith)) in s_schema)
        {
            string value = Value(test, key);
            if (value == "none")
            {
                if (requiredWith is { Length: 0 } || (requiredWith is not null && Value(test, requiredWith) != "none"))
                {
                    problems.Add($"`{key}` is required for test {name}");
                }
            }
            else if (allowed is not null && !allowed.Any(a => a.Equals(value, StringComparison.OrdinalIgnoreCase)))
            {
                problems.Add($"`{key}` of test {name} is '{value}', not one of {string.Join(", ", allowed)}");
            }
        }

        return problems;
    }

    private static string Value(JsonElement test, string key) =>
        test.TryGetProperty(key, out JsonElement value) && value.GetString() is { } text ? text.ToLowerInvariant() : "none";
}
