using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Routing;

/// <summary>
/// The paths one route matches, in one of four shapes: a path alone (<c>/db</c>); a path with an optional last segment
/// (<c>/queries</c> and <c>/queries/20</c>); a path with a required last segment (<c>/json/{count}</c>); a prefix and
/// everything after it (<c>/static/{file}</c>). Paths are matched as received, byte for byte and case-sensitively
/// (RFC 3986 §6.2.2.1: the path is case-sensitive), without decoding.
/// </summary>
internal sealed class RoutePattern
{
    private readonly byte[] _path;
    private readonly Shape _shape;
    private readonly bool _matchesPathAlone;

    private RoutePattern(string path, Shape shape)
    {
        if (!path.StartsWith('/') || (shape != Shape.Exact && path.EndsWith('/')))
        {
            throw new ArgumentException($"A route's path starts with '/' and, when something follows it, does not end with one: '{path}'.", nameof(path));
        }

        _path = System.Text.Encoding.ASCII.GetBytes(path);
        _shape = shape;
        _matchesPathAlone = shape is Shape.Exact or Shape.OptionalSegment;
    }

    private enum Shape : byte
    {
        Exact,
        OptionalSegment,
        Segment,
        Rest,
    }

    /// <summary>The path without its variable part, as the banner and the tests read it.</summary>
    public string Path => System.Text.Encoding.ASCII.GetString(_path);

    /// <summary>Whether the pattern matches <see cref="Path"/> alone.</summary>
    public bool MatchesPathAlone => _matchesPathAlone;

    /// <summary>Whether the pattern matches something after <see cref="Path"/>.</summary>
    public bool MatchesMore => _shape != Shape.Exact;

    /// <summary>Exactly <paramref name="path"/>.</summary>
    public static RoutePattern Exact(string path) => new(path, Shape.Exact);

    /// <summary><paramref name="path"/> alone, or followed by <c>/</c> and one segment (possibly empty, never holding '/').</summary>
    public static RoutePattern WithOptionalSegment(string path) => new(path, Shape.OptionalSegment);

    /// <summary><paramref name="path"/>, <c>/</c> and one segment that is not empty and holds no '/'.</summary>
    public static RoutePattern WithSegment(string path) => new(path, Shape.Segment);

    /// <summary><paramref name="path"/>, <c>/</c> and anything that is not empty.</summary>
    public static RoutePattern WithRest(string path) => new(path, Shape.Rest);

    /// <summary>
    /// Whether <paramref name="path"/> matches; <paramref name="value"/> is then what follows the pattern's path and its
    /// '/', and <paramref name="hasValue"/> whether anything (an empty segment included) followed it.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryMatch(ReadOnlySpan<byte> path, out ReadOnlySpan<byte> value, out bool hasValue)
    {
        // Every request asks the routes before its own: a length compare settles most of them without a byte compare.
        value = default;
        hasValue = false;
        byte[] own = _path;
        if (path.Length == own.Length)
        {
            return _matchesPathAlone && path.SequenceEqual(own);
        }

        return path.Length > own.Length && _shape != Shape.Exact && TryMatchMore(path, out value, out hasValue);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryMatchMore(ReadOnlySpan<byte> path, out ReadOnlySpan<byte> value, out bool hasValue)
    {
        value = default;
        hasValue = false;
        if (!path.StartsWith(_path) || path[_path.Length] != (byte)'/')
        {
            return false;
        }

        value = path.Slice(_path.Length + 1);
        hasValue = true;
        return _shape switch
        {
            Shape.OptionalSegment => !value.Contains((byte)'/'),
            Shape.Segment => !value.IsEmpty && !value.Contains((byte)'/'),
            _ => !value.IsEmpty,
        };
    }
}
