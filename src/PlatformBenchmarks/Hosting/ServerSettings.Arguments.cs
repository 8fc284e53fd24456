namespace PlatformBenchmarks.Hosting;

internal static partial class ServerSettings
{
    /// <summary>Whether the command line asks for the usage (<c>--help</c> or <c>-h</c>) instead of a server.</summary>
    public static bool IsHelpRequested(IEnumerable<string> args)
        => args.Any(argument => argument is "--help" or "-h");
}
