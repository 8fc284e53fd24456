using System.Runtime.CompilerServices;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Routing;

/// <summary>
/// The methods a route answers, and the Allow value that names them in its 405 and its answer to OPTIONS
/// (RFC 9110 §10.2.1, §15.5.6). Built once per route table; a check is one mask test.
/// </summary>
internal sealed class MethodSet
{
    private readonly int _mask;
    private readonly byte[] _allow;

    private MethodSet(HttpMethod[] methods)
    {
        foreach (HttpMethod method in methods)
        {
            _mask |= 1 << (int)method;
        }

        _allow = System.Text.Encoding.ASCII.GetBytes(string.Join(", ", methods.Select(static method => method.ToString().ToUpperInvariant())));
    }

    /// <summary>GET and HEAD: what every route that only reads answers (RFC 9110 §9.3.2: HEAD wherever GET is).</summary>
    public static MethodSet Read { get; } = new([HttpMethod.Get, HttpMethod.Head]);

    /// <summary>The methods named, in the order the Allow value lists them.</summary>
    public static MethodSet Of(params HttpMethod[] methods)
    {
        ArgumentNullException.ThrowIfNull(methods);
        if (methods.Length == 0 || methods.Contains(HttpMethod.Custom))
        {
            throw new ArgumentException("A route answers at least one method, each one of HTTP's registered methods.", nameof(methods));
        }

        return new MethodSet(methods);
    }

    /// <summary>The Allow field's value: <c>GET, HEAD</c>.</summary>
    public ReadOnlySpan<byte> Allow => _allow;

    /// <summary>The set as a mask of bits, one per <see cref="HttpMethod"/>, for a route to keep beside its other fields.</summary>
    internal int Mask => _mask;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool Contains(int mask, HttpMethod method) => (mask & (1 << (int)method)) != 0;
}
