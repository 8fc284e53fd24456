namespace PlatformBenchmarks.Tests.Support;

/// <summary>Files of this repository, found from the test binaries upwards (tests run from bin/, not the root).</summary>
internal static class Repository
{
    private static readonly Lazy<string> s_root = new(FindRoot);

    public static string Root => s_root.Value;

    public static string PathOf(params string[] parts) => Path.Combine([Root, .. parts]);

    public static string ReadText(params string[] parts) => File.ReadAllText(PathOf(parts));

    private static string FindRoot()
    {
        for (DirectoryInfo? directory = new(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "PlatformBenchmarks.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException($"No PlatformBenchmarks.sln above {AppContext.BaseDirectory}.");
    }
}
