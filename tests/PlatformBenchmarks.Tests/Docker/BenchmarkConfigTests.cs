using System.Text.Json;
using PlatformBenchmarks.Tests.Support;
using Tomlyn;
using Tomlyn.Model;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>
/// What TFB's toolset does with the submission's config: it validates each test's metadata (a wrong value stops the
/// run before anything is built), finds each test's dockerfile by name, and reads the URLs it loads. That the URLs
/// answer with the right content is <see cref="SubmissionUrlTests"/>; that the dockerfiles build and serve is
/// <see cref="PublishTests"/>.
/// </summary>
public class BenchmarkConfigTests
{
    [Fact]
    public void TfbsMetadataCheckAcceptsEveryTest()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();
        IReadOnlyList<(string Name, JsonElement Test)> tests = TfbSubmission.Tests(config);

        Assert.Contains(tests, t => t.Name == "default"); // TFB warns about a framework without one
        Assert.All(tests, t => Assert.Equal([], TfbMetadata.Problems(t.Name, t.Test)));
    }

    [Theory]
    [InlineData("orm", "ORM")]
    [InlineData("database", "PostgreSQL")]
    [InlineData("classification", "Framework")]
    [InlineData("language", "None")]
    [InlineData("db_url", "db")]
    public void TfbsMetadataCheckRefusesAValueItDoesNotKnow(string key, string value)
    {
        using JsonDocument config = TfbSubmission.LoadConfig();
        Dictionary<string, JsonElement> test = JsonSerializer.Deserialize<Dictionary<string, JsonElement>>(TfbSubmission.Tests(config)[0].Test.GetRawText())!;
        test[key] = JsonSerializer.SerializeToElement(value);

        Assert.Single(TfbMetadata.Problems("default", JsonSerializer.SerializeToElement(test)), p => p.StartsWith($"`{key}`", StringComparison.Ordinal));
    }

    [Fact]
    public void TfbFindsADockerfileForEveryTestAndTheImageListensOnTheTestsPort()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();
        string framework = config.RootElement.GetProperty("framework").GetString()!;

        foreach ((string name, JsonElement test) in TfbSubmission.Tests(config))
        {
            string path = TfbSubmission.DockerfileOf(framework, name);
            Assert.True(File.Exists(path), $"TFB builds test '{name}' from {path}, which does not exist");
            // The server listens where ENTRYPOINT's --urls says; docker/verify-publish.sh starts it from that line.
            Assert.Equal([test.GetProperty("port").GetInt32()], Dockerfile.Exposed(path));
        }
    }

    /// <summary>TFB's toolset reads benchmark_config.json and its website config.toml: the two must describe the same tests.</summary>
    [Fact]
    public void ConfigTomlDescribesTheTestsOfBenchmarkConfig()
    {
        using JsonDocument config = TfbSubmission.LoadConfig();
        TomlTable toml = TomlSerializer.Deserialize<TomlTable>(Repository.ReadText("docker", "tfb", "config.toml"))!;
        IReadOnlyList<(string Name, JsonElement Test)> tests = TfbSubmission.Tests(config);

        Assert.Equal(config.RootElement.GetProperty("framework").GetString(), ((TomlTable)toml["framework"])["name"]);
        // config.toml calls the default test [main]; every other table is a test of the same name.
        Assert.Equal(
            tests.Select(t => t.Name == "default" ? "main" : t.Name).Order(StringComparer.Ordinal),
            toml.Keys.Where(k => k != "framework").Order(StringComparer.Ordinal));
        foreach ((string name, JsonElement test) in tests)
        {
            var table = (TomlTable)toml[name == "default" ? "main" : name];
            var urls = (TomlTable)table["urls"];
            foreach (TfbUrl url in TfbSubmission.Urls)
            {
                // plaintext_url in the JSON is urls.plaintext in the TOML.
                Assert.Equal(test.GetProperty(url.Key).GetString(), urls.TryGetValue(url.Key[..^"_url".Length], out object? value) ? value : null);
            }

            foreach ((string key, object value) in table.Where(p => p.Key != "urls"))
            {
                Assert.True(test.TryGetProperty(key, out JsonElement json) && json.GetString() == (string)value,
                    $"[{name}] {key} = \"{value}\", benchmark_config.json says {(test.TryGetProperty(key, out JsonElement other) ? other.GetRawText() : "nothing")}");
            }
        }
    }
}
