using System.Text.Json;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

/// <summary>
/// Every image that builds the server uses the SDK global.json names: the build runs warnings as errors, and a newer
/// SDK brings new analyzers, so a floating tag could break the image with nothing changed here.
/// </summary>
public class SdkImageTests
{
    public static TheoryData<string> Dockerfiles() => [.. BuildingDockerfiles()];

    [Fact]
    public void TheServersDockerfilesAreFound() => Assert.Contains("tfb/platformbenchmarks.dockerfile", BuildingDockerfiles());

    [Theory]
    [MemberData(nameof(Dockerfiles))]
    public void TheSdkImageIsTheVersionGlobalJsonNamesAndTheBuildCopiesGlobalJson(string dockerfile)
    {
        string path = Path.Combine(Repository.PathOf("docker"), dockerfile);
        using var global = JsonDocument.Parse(File.ReadAllText(Repository.PathOf("global.json")));
        string version = global.RootElement.GetProperty("sdk").GetProperty("version").GetString()!;

        Assert.All(Dockerfile.Images(path).Where(IsSdk), image => Assert.Equal($"mcr.microsoft.com/dotnet/sdk:{version}", image));
        Assert.Contains(Dockerfile.ContextSources(path), source => source == "global.json" || source.EndsWith("/global.json", StringComparison.Ordinal));
    }

    /// <summary>Every dockerfile under docker/ with an SDK stage, relative to docker/.</summary>
    private static string[] BuildingDockerfiles() =>
        [.. Directory.EnumerateFiles(Repository.PathOf("docker"), "*", SearchOption.AllDirectories)
            .Where(p => p.EndsWith(".dockerfile", StringComparison.Ordinal) || Path.GetFileName(p) == "Dockerfile")
            .Where(p => Dockerfile.Images(p).Any(IsSdk))
            .Select(p => Path.GetRelativePath(Repository.PathOf("docker"), p))
            .Order(StringComparer.Ordinal)];

    private static bool IsSdk(string image) => image.StartsWith("mcr.microsoft.com/dotnet/sdk:", StringComparison.Ordinal);
}
