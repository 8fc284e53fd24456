using YamlDotNet.RepresentationModel;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>The repository's YAML files, read with YamlDotNet.</summary>
internal static class Yaml
{
    /// <summary>The root mapping of the one document in the file at <paramref name="path"/> (relative to the repository root).</summary>
    public static YamlMappingNode Load(params string[] path)
    {
        var yaml = new YamlStream();
        using var reader = new StringReader(Repository.ReadText(path));
        yaml.Load(reader);
        return (YamlMappingNode)Assert.Single(yaml.Documents).RootNode;
    }
}
