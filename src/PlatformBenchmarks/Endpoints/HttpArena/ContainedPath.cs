namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// Resolves a path the way the kernel would open it, following every symbolic link on the way, so that a file reached
/// through a link that points outside the served directory is recognised as outside. Lexical checks alone (no
/// <c>..</c>) cannot see a link; <see cref="Path.GetFullPath(string)"/> does not follow them.
/// </summary>
internal static class ContainedPath
{
    /// <summary>As many links as Linux follows in one lookup (ELOOP beyond).</summary>
    private const int MaxLinks = 40;

    private static readonly char[] s_separators = ['/', Path.DirectorySeparatorChar];

    /// <summary>The real path of <paramref name="directory"/> (absolute), or null when a link loops.</summary>
    public static string? Resolve(string directory)
    {
        string root = Path.GetPathRoot(directory) ?? "/";
        return Walk(root, directory[root.Length..]);
    }

    /// <summary>
    /// The real path of <paramref name="name"/> (relative, '/'-separated) under <paramref name="realRoot"/> (a real
    /// path, from <see cref="Resolve"/>), or null when it lies outside <paramref name="realRoot"/> or a link loops.
    /// </summary>
    public static string? ResolveWithin(string realRoot, string name)
    {
        if (Path.IsPathRooted(name) || Walk(realRoot, name) is not { } path)
        {
            return null;
        }

        string prefix = Path.EndsInDirectorySeparator(realRoot) ? realRoot : realRoot + Path.DirectorySeparatorChar;
        return path.StartsWith(prefix, StringComparison.Ordinal) && path.Length > prefix.Length ? path : null;
    }

    /// <summary>Walks <paramref name="relative"/>'s segments from <paramref name="start"/>, replacing each link by its target.</summary>
    private static string? Walk(string start, string relative)
    {
        string current = start;
        var pending = new Stack<string>(relative.Split(s_separators).Reverse());
        int links = 0;
        while (pending.TryPop(out string? segment))
        {
            if (segment.Length == 0 || segment == ".")
            {
                continue;
            }

            if (segment == "..")
            {
                current = Path.GetDirectoryName(current) ?? current;
                continue;
            }

            string next = Path.Join(current, segment);
            string? target = new FileInfo(next).LinkTarget;
            if (target is null)
            {
                current = next;
                continue;
            }

            if (++links > MaxLinks)
            {
                return null;
            }

            // A relative target is relative to the link's directory, which is where the walk stands.
            if (Path.IsPathRooted(target))
            {
                current = Path.GetPathRoot(target)!;
                target = target[current.Length..];
            }

            foreach (string part in target.Split(s_separators).Reverse())
            {
                pending.Push(part);
            }
        }

        return current;
    }
}
