using System.Text.RegularExpressions;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// Reads the TOML subset of TFB's config.toml files: <c>[table]</c> headers and <c>key = value</c> lines whose key is
/// bare or dotted (<c>urls.plaintext</c>, kept as one flat key) and whose value is a basic string, an integer or a
/// boolean. Anything else is an error with its line number, like <see cref="YamlSubset"/>: an accepted file means the
/// same to every TOML parser.
/// </summary>
internal static partial class TomlSubset
{
    /// <summary>Tables by name ("" for keys before the first header), each mapping keys to their values as text.</summary>
    public static Dictionary<string, Dictionary<string, string>> Parse(string text)
    {
        var tables = new Dictionary<string, Dictionary<string, string>>(StringComparer.Ordinal) { [string.Empty] = new(StringComparer.Ordinal) };
        Dictionary<string, string> current = tables[string.Empty];
        string[] lines = text.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            int number = i + 1;
            string line = lines[i].Trim();
            if (line.Length == 0 || line.StartsWith('#'))
            {
                continue;
            }

            Match header = TableHeader().Match(line);
            if (header.Success)
            {
                string name = header.Groups["name"].Value;
                if (!tables.TryAdd(name, current = new Dictionary<string, string>(StringComparer.Ordinal)))
                {
                    throw new FormatException($"TOML line {number}: table [{name}] defined twice");
                }

                continue;
            }

            Match pair = KeyValue().Match(line);
            if (!pair.Success)
            {
                throw new FormatException($"TOML line {number}: outside the subset (table header or key = string/integer/boolean): {line}");
            }

            string key = pair.Groups["key"].Value;
            string value = pair.Groups["string"].Success ? Unescape(pair.Groups["string"].Value, number) : pair.Groups["bare"].Value;
            if (!current.TryAdd(key, value))
            {
                throw new FormatException($"TOML line {number}: duplicate key {key}");
            }
        }

        return tables;
    }

    private static string Unescape(string value, int line) => EscapeSequence().Replace(value, m => m.Value[1] switch
    {
        '"' => "\"",
        '\\' => "\\",
        'n' => "\n",
        't' => "\t",
        _ => throw new FormatException($"TOML line {line}: the escape {m.Value} is outside the subset"),
    });

    [GeneratedRegex(@"^\[(?<name>[A-Za-z0-9_-]+)\]\s*(#.*)?$")]
    private static partial Regex TableHeader();

    // A string may hold any character but an unescaped quote or backslash; a trailing comment is allowed.
    [GeneratedRegex(@"^(?<key>[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)\s*=\s*(""(?<string>([^""\\]|\\.)*)""|(?<bare>-?[0-9]+|true|false))\s*(#.*)?$")]
    private static partial Regex KeyValue();

    [GeneratedRegex(@"\\.")]
    private static partial Regex EscapeSequence();
}
