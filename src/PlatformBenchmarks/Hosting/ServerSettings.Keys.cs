using Microsoft.Extensions.Configuration.CommandLine;

namespace PlatformBenchmarks.Hosting;

internal static partial class ServerSettings
{
    /// <summary>
    /// Refuses a key the server does not read, naming the nearest one it does, or for a key that moved the key it is now
    /// (<see cref="SettingsCatalog.Moved"/>): the binder ignores an unknown key, so a typo
    /// (<c>--Htp:MaxRequestLineSize 10</c>) would start the server on the default. Under the server's
    /// <see cref="SettingsCatalog.Sections"/> every source is judged (and under Kestrel's, <see cref="SettingsCatalog.KestrelSection"/>). Outside them only the command line and settings
    /// files are, because the environment holds the whole machine's variables (PATH, HOME, ...), which are not settings.
    /// Throws <see cref="SettingsException"/> with every unknown key on one line.
    /// </summary>
    public static void CheckKeys(IConfigurationRoot configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var unknown = new List<string>();
        foreach (IConfigurationProvider provider in configuration.Providers)
        {
            bool judgesEveryKey = provider is CommandLineConfigurationProvider or FileConfigurationProvider;
            foreach (string key in Keys(provider, parentPath: null))
            {
                if (IsUnknown(key, judgesEveryKey) && !unknown.Contains(key, StringComparer.OrdinalIgnoreCase))
                {
                    unknown.Add(key);
                }
            }
        }

        if (unknown.Count > 0)
        {
            throw new SettingsException(string.Join(" ", unknown.Select(Refusal)));
        }
    }

    /// <summary>The keys <paramref name="provider"/> holds a value for, at and below <paramref name="parentPath"/>.</summary>
    private static IEnumerable<string> Keys(IConfigurationProvider provider, string? parentPath)
    {
        foreach (string child in provider.GetChildKeys([], parentPath).Distinct(StringComparer.OrdinalIgnoreCase))
        {
            string path = parentPath is null ? child : ConfigurationPath.Combine(parentPath, child);
            if (provider.TryGet(path, out string? value) && value is not null)
            {
                yield return path;
            }

            foreach (string below in Keys(provider, path))
            {
                yield return below;
            }
        }
    }

    private static bool IsUnknown(string key, bool judgesEveryKey)
    {
        if (SettingsCatalog.Find(key) is not null || IsIn(key, SettingsCatalog.LoggingSection))
        {
            return false;
        }

        bool underServerSection = SettingsCatalog.Sections.Any(section => IsIn(key, section)) || IsIn(key, SettingsCatalog.KestrelSection);
        return underServerSection || judgesEveryKey;
    }

    private static string Refusal(string key)
        => SettingsCatalog.Moved.TryGetValue(key, out string? moved)
            ? $"Configuration '{key}' has moved: it is '{moved}' now."
            : IsIn(key, SettingsCatalog.KestrelSection)
            ? $"Configuration '{key}' is not a setting of this server, which reads no Kestrel keys: it listens where 'urls' says."
            : $"Configuration '{key}' is not a setting of this server; the nearest is '{Nearest(key)}' (--help lists them).";

    /// <summary>
    /// The known key meant by <paramref name="key"/>: one of the same name in another section
    /// (<c>Database:ConnectionString</c>, <c>Transport:MaxRequestLineSize</c>), else the key least edits away, ignoring
    /// case: of its own section's keys when it is under a server section, of every key and section name otherwise.
    /// </summary>
    private static string Nearest(string key)
    {
        IEnumerable<string> known = SettingsCatalog.All.Select(setting => setting.Key);
        string name = Name(key);
        if (key.Length > name.Length && known.FirstOrDefault(candidate => Name(candidate).Equals(name, StringComparison.OrdinalIgnoreCase)) is { } moved)
        {
            return moved;
        }

        string? section = SettingsCatalog.Sections.FirstOrDefault(section => IsIn(key, section));
        IEnumerable<string> candidates = section is not null
            ? known.Where(candidate => IsIn(candidate, section))
            : known.Concat(SettingsCatalog.Sections).Append(SettingsCatalog.LoggingSection);
        return candidates.MinBy(candidate => EditDistance(key.ToUpperInvariant(), candidate.ToUpperInvariant()))!;
    }

    /// <summary>The last part of a key (<c>MaxRequestLineSize</c> of <c>Http:MaxRequestLineSize</c>).</summary>
    private static string Name(string key) => key[(key.LastIndexOf(':') + 1)..];

    /// <summary>Whether <paramref name="key"/> is under <paramref name="section"/> (not the section itself).</summary>
    private static bool IsIn(string key, string section)
        => key.Length > section.Length + 1
            && key[section.Length] == ':'
            && key.StartsWith(section, StringComparison.OrdinalIgnoreCase);

    /// <summary>
    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours each count one,
    /// so the usual typos (a missing, doubled, wrong or swapped letter) are one edit away.
    /// </summary>
    internal static int EditDistance(string from, string to)
    {
        int[][] distances = new int[from.Length + 1][];
        for (int i = 0; i <= from.Length; i++)
        {
            distances[i] = new int[to.Length + 1];
            distances[i][0] = i;
        }

        for (int j = 0; j <= to.Length; j++)
        {
            distances[0][j] = j;
        }

        for (int i = 1; i <= from.Length; i++)
        {
            for (int j = 1; j <= to.Length; j++)
            {
                int substitution = from[i - 1] == to[j - 1] ? 0 : 1;
                int distance = Math.Min(Math.Min(distances[i - 1][j] + 1, distances[i][j - 1] + 1), distances[i - 1][j - 1] + substitution);
                if (i > 1 && j > 1 && from[i - 1] == to[j - 2] && from[i - 2] == to[j - 1])
                {
                    distance = Math.Min(distance, distances[i - 2][j - 2] + 1);
                }

                distances[i][j] = distance;
            }
        }

        return distances[from.Length][to.Length];
    }
}
