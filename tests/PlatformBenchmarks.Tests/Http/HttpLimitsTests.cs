using System.Globalization;
using System.Reflection;
using System.Text.RegularExpressions;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>The README's <c>Http:</c> settings are the ones the server binds, with the defaults it really uses.</summary>
public partial class HttpLimitsTests
{
    private static readonly PropertyInfo[] s_settings =
        typeof(HttpLimits).GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(property => property.CanWrite).ToArray();

    [GeneratedRegex(@"^\| `Http:(?<key>\w+)` \| `(?<value>[^`]+)` \|", RegexOptions.Multiline)]
    private static partial Regex ReadmeHttpRow();

    public static TheoryData<string, string> DocumentedSettings()
    {
        var data = new TheoryData<string, string>();
        foreach (Match row in ReadmeHttpRow().Matches(Repository.ReadText("README.md")))
        {
            data.Add(row.Groups["key"].Value, row.Groups["value"].Value);
        }

        return data;
    }

    [Fact]
    public void EverySettingIsDocumented()
    {
        var documented = DocumentedSettings().Select(row => (string)row[0]).ToHashSet(StringComparer.Ordinal);

        Assert.Equal(s_settings.Select(property => property.Name).Order(), documented.Order());
    }

    [Theory]
    [MemberData(nameof(DocumentedSettings))]
    public async Task TheDocumentedDefaultIsTheDefaultAndTheKeyIsBound(string key, string documentedDefault)
    {
        PropertyInfo property = typeof(HttpLimits).GetProperty(key)!;
        object? actualDefault = property.GetValue(await BoundLimitsAsync());
        Assert.Equal(Parse(documentedDefault, property.PropertyType), actualDefault);

        // The key reaches the server: a different value on the command line is what the engine gets.
        string other = actualDefault switch
        {
            TimeSpan span => (span + TimeSpan.FromSeconds(1)).ToString("c", CultureInfo.InvariantCulture),
            int number => (number + 1).ToString(CultureInfo.InvariantCulture),
            long number => (number + 1).ToString(CultureInfo.InvariantCulture),
            _ => throw new InvalidOperationException($"No test value for {property.PropertyType}."),
        };
        Assert.Equal(Parse(other, property.PropertyType), property.GetValue(await BoundLimitsAsync($"--Http:{key}", other)));
    }

    [Theory]
    [InlineData("MaxRequestLineSize", "0")]
    [InlineData("MaxRequestHeadersSize", "2147483647")]
    [InlineData("MaxRequestHeaderCount", "-1")]
    [InlineData("MaxRequestBodySize", "-1")]
    [InlineData("RequestHeadersTimeout", "00:00:00")]
    [InlineData("MinRequestBodyDataRate", "-1")]
    [InlineData("MinRequestBodyDataRateGracePeriod", "00:00:00")]
    [InlineData("LingerTimeout", "-00:00:01")]
    [InlineData("MaxLingerTime", "100.00:00:00")]
    [InlineData("LingerTimeout", "two seconds")]
    [InlineData("MaxRequestBodySize", "1MB")]
    [InlineData("Http2KeepAliveTimeout", "00:00:00")]
    public async Task AnUnusableSettingStopsTheServerAtStartUpNamingTheKey(string key, string value)
    {
        SettingsException exception = await Assert.ThrowsAsync<SettingsException>(() => BoundLimitsAsync($"--Http:{key}", value));

        Assert.Contains($"'Http:{key}'", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheServerExitsWithTheSettingsExitCodeInsteadOfCrashing()
    {
        Assert.Equal(Program.SettingsExitCode, await Program.Main(["--urls", "http://127.0.0.1:0", "--Http:MaxRequestHeaderCount", "0"]));
    }

    private static object Parse(string text, Type type) =>
        type == typeof(TimeSpan) ? TimeSpan.Parse(text, CultureInfo.InvariantCulture)
        : type == typeof(int) ? (object)int.Parse(text, CultureInfo.InvariantCulture)
        : type == typeof(long) ? (object)long.Parse(text, CultureInfo.InvariantCulture)
        : throw new InvalidOperationException($"No parser for {type}.");

    /// <summary>The <see cref="HttpLimits"/> the server's host hands the engine, for these command-line arguments.</summary>
    private static async Task<HttpLimits> BoundLimitsAsync(params string[] args)
    {
        WebApplication app = Program.BuildApplication(["--urls", "http://127.0.0.1:0", .. args], new FakeTimeProvider());
        await using (app)
        {
            return app.Services.GetRequiredService<Microsoft.Extensions.Options.IOptions<HttpLimits>>().Value;
        }
    }
}
