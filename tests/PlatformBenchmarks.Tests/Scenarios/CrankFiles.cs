using System.Text.RegularExpressions;
using PlatformBenchmarks.Tests.Support;
using YamlDotNet.RepresentationModel;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>The crank configuration files (scenarios/*.benchmarks.yml), read with YamlDotNet into plain dictionaries and lists.</summary>
internal static partial class CrankFiles
{
    /// <summary>Crank scenario name → TFB test type.</summary>
    public static readonly IReadOnlyDictionary<string, string> TfbTypes = new Dictionary<string, string>
    {
        ["plaintext"] = "plaintext",
        ["json"] = "json",
        ["db"] = "db",
        ["queries"] = "query",
        ["updates"] = "update",
        ["fortunes"] = "fortune",
        ["cached"] = "cached-query",
    };

    public static IReadOnlyList<string> Paths() =>
        [.. Directory.GetFiles(Repository.PathOf("scenarios"), "*.benchmarks.yml").Order(StringComparer.Ordinal)];

    public static Dictionary<string, object?> Load(string path)
    {
        var stream = new YamlStream();
        using (var reader = new StringReader(File.ReadAllText(path)))
        {
            stream.Load(reader);
        }

        return Convert(stream.Documents[0].RootNode) as Dictionary<string, object?> ?? throw new FormatException($"{path} is not a mapping");
    }

    /// <summary>Mappings become dictionaries keyed by their scalar keys, sequences lists, scalars their text.</summary>
    private static object? Convert(YamlNode node) => node switch
    {
        YamlMappingNode mapping => mapping.Children.ToDictionary(entry => ((YamlScalarNode)entry.Key).Value!, entry => Convert(entry.Value)),
        YamlSequenceNode sequence => sequence.Children.Select(Convert).ToList(),
        YamlScalarNode scalar => scalar.Value,
        _ => throw new FormatException($"unexpected YAML node {node.NodeType}"),
    };

    public static string TfbTypeOf(string scenario) => TfbTypes[scenario];

    /// <summary>(scenario, path the load job requests) for every scenario of every file.</summary>
    public static IEnumerable<(string Scenario, string Path)> LoadPaths()
    {
        foreach (string file in Paths())
        {
            foreach ((string name, object? scenario) in Mapping(Load(file), "scenarios"))
            {
                Dictionary<string, object?> load = Mapping((Dictionary<string, object?>)scenario!, "load");
                yield return (name, (string)Mapping(load, "variables")["path"]!);
            }
        }
    }

    /// <summary>The mapping under <paramref name="key"/>, or an error that names the key.</summary>
    public static Dictionary<string, object?> Mapping(Dictionary<string, object?> node, string key) =>
        node.TryGetValue(key, out object? value) && value is Dictionary<string, object?> mapping
            ? mapping
            : throw new FormatException($"'{key}' is missing or not a mapping");

    /// <summary>A job's text with every <c>{{name}}</c> replaced by its variable, as crank renders it.</summary>
    public static string Render(string template, IReadOnlyDictionary<string, string> variables) =>
        TemplateVariable().Replace(template, m => variables.TryGetValue(m.Groups["name"].Value, out string? value) ? value : throw new KeyNotFoundException($"{{{{{m.Groups["name"].Value}}}}} is not defined"));

    [GeneratedRegex(@"\{\{\s*(?<name>\w+)\s*\}\}")]
    public static partial Regex TemplateVariable();
}
