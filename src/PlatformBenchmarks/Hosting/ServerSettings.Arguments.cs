namespace PlatformBenchmarks.Hosting;

internal static partial class ServerSettings
{
    /// <summary>Whether the command line asks for the usage (<c>--help</c> or <c>-h</c>) instead of a server.</summary>
    public static bool IsHelpRequested(IEnumerable<string> args)
        => args.Any(argument => argument is "--help" or "-h");

    /// <summary>
    /// The command line's shape, checked before the configuration reads it. Its parser takes whatever follows a key as
    /// the value, even the next key (<c>--Http:MaxRequestLineSize --urls x</c>), and drops a key with nothing after it
    /// and every argument that is not a key, so a forgotten value would start the server on the default. Here each
    /// <c>--Key</c> (or <c>/Key</c>) needs a value that is not itself a <c>--Key</c>, or is written <c>--Key=value</c>.
    /// </summary>
    public static void CheckArguments(IReadOnlyList<string> args)
    {
        ArgumentNullException.ThrowIfNull(args);
        for (int i = 0; i < args.Count; i++)
        {
            string argument = args[i];
            int prefix = argument.StartsWith("--", StringComparison.Ordinal) ? 2 : argument.StartsWith('/') ? 1 : 0;
            if (prefix == 0)
            {
                throw new SettingsException($"Argument '{argument}' is not a setting: settings are --Key value or --Key=value (--help lists them).");
            }

            int equals = argument.IndexOf('=', StringComparison.Ordinal);
            if ((equals < 0 ? argument.Length : equals) == prefix)
            {
                throw new SettingsException($"Argument '{argument}' names no key.");
            }

            if (equals >= 0)
            {
                continue;
            }

            if (i + 1 == args.Count || args[i + 1].StartsWith("--", StringComparison.Ordinal))
            {
                throw new SettingsException($"Argument '{argument}' has no value (--Key value or --Key=value).");
            }

            i++;
        }
    }
}
