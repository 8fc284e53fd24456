using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

public class BenchmarkConfigTests
{
    [Fact]
    public void TheConfigNamesTheFrameworkAndItsJitAndAotTests()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();

        Assert.Equal("platformbenchmarks", config.RootElement.GetProperty("framework").GetString());
        Assert.Single(config.RootElement.GetProperty("tests").EnumerateArray());
        Assert.Equal(["default", "aot"], TfbSubmission.Tests(config).Select(t => t.Name));
    }

    [Fact]
    public void EveryTestListsTheSevenUrlsWithinTfbsRules()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();

        foreach ((string name, JsonElement test) in TfbSubmission.Tests(config))
        {
            foreach (TfbUrl url in TfbSubmission.Urls)
            {
                string? value = test.TryGetProperty(url.Key, out JsonElement element) ? element.GetString() : null;
                Assert.True(value == url.Url, $"{name}.{url.Key} is '{value}', expected '{url.Url}'");
                Assert.StartsWith("/", value, StringComparison.Ordinal);
                Assert.True(value.Length >= url.MinimumLength, $"{name}.{url.Key}: TFB requires at least {url.MinimumLength} characters");
            }
        }
    }

    [Fact]
    public void EveryTestCarriesTheMetadataTfbExpects()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();
        var expected = new Dictionary<string, string>
        {
            ["approach"] = "Realistic",
            ["classification"] = "Platform",
            ["database"] = "Postgres",
            ["orm"] = "Raw",
            ["language"] = "C#",
            ["platform"] = ".NET",
            ["os"] = "Linux",
            ["database_os"] = "Linux",
        };

        foreach ((string name, JsonElement test) in TfbSubmission.Tests(config))
        {
            Assert.Equal(8080, test.GetProperty("port").GetInt32());
            foreach ((string key, string value) in expected)
            {
                Assert.True(test.TryGetProperty(key, out JsonElement actual) && actual.GetString() == value, $"{name}.{key} should be '{value}'");
            }

            foreach (string key in new[] { "framework", "webserver", "display_name", "versus", "flavor" })
            {
                Assert.False(string.IsNullOrWhiteSpace(test.GetProperty(key).GetString()), $"{name}.{key} is empty");
            }
        }
    }

    [Fact]
    public void EveryTestHasADockerfileWhereTfbLooksAndItServesTheTestsPort()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();
        string framework = config.RootElement.GetProperty("framework").GetString()!;

        foreach ((string name, JsonElement test) in TfbSubmission.Tests(config))
        {
            string path = TfbSubmission.DockerfileOf(framework, name);
            Assert.True(File.Exists(path), $"TFB runs test '{name}' from {path}, which does not exist");
            int port = test.GetProperty("port").GetInt32();
            string[] lines = File.ReadAllLines(path);
            Assert.Contains($"EXPOSE {port}", lines);
            string entrypoint = Assert.Single(lines, l => l.StartsWith("ENTRYPOINT ", StringComparison.Ordinal));
            Assert.Contains($"\"--urls\", \"http://*:{port}\"", entrypoint, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void ConfigTomlAgreesWithBenchmarkConfig()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();
        Dictionary<string, Dictionary<string, string>> toml = TomlSubset.Parse(Repository.ReadText("docker", "tfb", "config.toml"));

        Assert.Equal(config.RootElement.GetProperty("framework").GetString(), toml["framework"]["name"]);
        IReadOnlyList<(string Name, JsonElement Test)> tests = TfbSubmission.Tests(config);
        // config.toml calls the default test [main]; every other table is a test of the same name.
        Assert.Equal(tests.Select(t => t.Name == "default" ? "main" : t.Name).Order(StringComparer.Ordinal),
            toml.Keys.Where(k => k is not ("" or "framework")).Order(StringComparer.Ordinal));
        foreach ((string name, JsonElement test) in tests)
        {
            Dictionary<string, string> table = toml[name == "default" ? "main" : name];
            foreach (TfbUrl url in TfbSubmission.Urls)
            {
                Assert.Equal(test.GetProperty(url.Key).GetString(), table.GetValueOrDefault(url.TomlKey));
            }

            foreach (string key in new[] { "approach", "classification", "database", "database_os", "os", "orm", "platform", "webserver", "versus" })
            {
                Assert.True(test.GetProperty(key).GetString() == table.GetValueOrDefault(key), $"[{name}] {key} differs from benchmark_config.json");
            }
        }
    }
}
