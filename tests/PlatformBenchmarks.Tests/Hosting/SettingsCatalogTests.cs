using System.Reflection;
using System.Text.RegularExpressions;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>The catalog of keys is the set the server binds and the README documents.</summary>
public partial class SettingsCatalogTests
{
    [GeneratedRegex(@"^\| `(?<key>[^`]+)`", RegexOptions.Multiline)]
    private static partial Regex ReadmeRowKey();

    public static TheoryData<string, Type[]> BoundSections => new()
    {
        { "Http", [typeof(HttpLimits)] },
        { "Transport", [typeof(LinuxTransportOptions)] },
        { "Sockets", [typeof(KestrelSocketSettings)] },
        { "Database", [typeof(DatabaseOptions)] },
        { "HttpArena", [typeof(HttpArenaOptions)] },
    };

    [Theory]
    [MemberData(nameof(BoundSections))]
    public void ASectionsKeysAreTheWritablePropertiesOfItsOptionsTypes(string section, Type[] types)
    {
        IEnumerable<string> bound = types
            .SelectMany(type => type.GetProperties(BindingFlags.Public | BindingFlags.Instance))
            .Where(property => property.CanWrite)
            .Select(property => $"{section}:{property.Name}")
            // The root key ConnectionString is the documented one; the options type holds it too.
            .Where(key => key != "Database:ConnectionString");

        Assert.Equal(bound.Order(), SettingsCatalog.All.Select(setting => setting.Key).Where(key => key.StartsWith(section + ":", StringComparison.Ordinal)).Order());
        Assert.Contains(section, SettingsCatalog.Sections);
    }

    [Fact]
    public void EveryKeyIsInTheReadmesConfigurationTableAndNoOther()
    {
        string readme = Repository.ReadText("README.md");
        int start = readme.IndexOf("## Configuration", StringComparison.Ordinal);
        string configuration = readme[start..readme.IndexOf("\n## ", start + 1, StringComparison.Ordinal)];
        IEnumerable<string> documented = ReadmeRowKey().Matches(configuration).Select(row => row.Groups["key"].Value).Where(key => key != "key");

        Assert.Equal(documented.Order(), SettingsCatalog.All.Select(setting => setting.Key).Order());
    }

    [Fact]
    public void TheTransportKindTakesTheNamesOfItsEnum()
    {
        Assert.Equal(Enum.GetNames<TransportKind>(), SettingsCatalog.Find("transport:kind")!.Choices);
    }
}
