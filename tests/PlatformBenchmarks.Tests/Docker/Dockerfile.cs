namespace PlatformBenchmarks.Tests.Docker;

/// <summary>
/// The few facts the tests take from a dockerfile, read the way Docker reads these single-line instructions. The
/// files' other lines are exercised by docker/verify-publish.sh, which replays the build stage and runs its output.
/// </summary>
internal static class Dockerfile
{
    /// <summary>The value an <c>ENV NAME=value</c> line gives (the last one wins, as in Docker), unquoted; null if none.</summary>
    public static string? Env(string path, string name)
    {
        string prefix = $"ENV {name}=";
        string? line = File.ReadLines(path).LastOrDefault(l => l.StartsWith(prefix, StringComparison.Ordinal));
        return line?[prefix.Length..].Trim().Trim('"');
    }

    /// <summary>The sources of every <c>COPY</c> that reads the build context (not <c>COPY --from</c>).</summary>
    public static IEnumerable<string> ContextSources(string path) =>
        File.ReadLines(path)
            .Where(l => l.StartsWith("COPY ", StringComparison.Ordinal) && !l.StartsWith("COPY --from", StringComparison.Ordinal))
            .SelectMany(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1..^1]);

    /// <summary>The image of each <c>FROM</c> line, in order.</summary>
    public static IEnumerable<string> Images(string path) =>
        File.ReadLines(path)
            .Where(l => l.StartsWith("FROM ", StringComparison.Ordinal))
            .Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1]);

    /// <summary>The ports an <c>EXPOSE</c> line declares.</summary>
    public static IEnumerable<int> Exposed(string path) =>
        File.ReadLines(path)
            .Where(l => l.StartsWith("EXPOSE ", StringComparison.Ordinal))
            .SelectMany(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1..])
            .Select(p => int.Parse(p.Split('/')[0], System.Globalization.CultureInfo.InvariantCulture));
}
