using System.Text;

namespace PlatformBenchmarks.Hosting;

/// <summary>What <c>--help</c> prints: every key of <see cref="SettingsCatalog"/> with its default and meaning.</summary>
internal static class Usage
{
    public static string Text { get; } = Create();

    private static string Create()
    {
        var text = new StringBuilder();
        text.AppendLine("Usage: PlatformBenchmarks [--Key value | --Key=value]...");
        text.AppendLine("Settings come from appsettings.json, then environment variables (Section__Key), then the command line;");
        text.AppendLine("keys ignore case. An unknown key or a value the server cannot run with stops it with exit code 2.");
        text.AppendLine();
        foreach (Setting setting in SettingsCatalog.All)
        {
            text.Append("  --").Append(setting.Key).Append("  (default ").Append(setting.Default).AppendLine(")");
            text.Append("      ").Append(setting.Choices is { } choices ? $"{string.Join(", ", choices)}: " : string.Empty).AppendLine(setting.Meaning);
        }

        return text.ToString();
    }
}
