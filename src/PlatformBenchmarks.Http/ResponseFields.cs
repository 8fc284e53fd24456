using System.Text;

namespace PlatformBenchmarks.Http;

/// <summary>
/// A fixed group of response fields, names and values (<c>Content-Encoding: br</c>, <c>Vary: Accept-Encoding</c>),
/// built once and sent with many responses. A handler names fields; each codec encodes them its own way, so the group
/// keeps each codec's encoding, made once here: HTTP/1.1's field lines and HTTP/2's lowercase names.
/// </summary>
public sealed class ResponseFields
{
    private readonly byte[] _http1Lines;

    /// <param name="fields">Each name a token and each value visible ASCII with inner spaces (RFC 9110 §5.1, §5.5).</param>
    public ResponseFields(params (string Name, string Value)[] fields)
    {
        ArgumentNullException.ThrowIfNull(fields);
        var lines = new StringBuilder();
        foreach ((string name, string value) in fields)
        {
            if (name.Length == 0 || !name.All(IsTokenChar))
            {
                throw new ArgumentException($"'{name}' is not a field name.", nameof(fields));
            }

            if (value.Trim() != value || !value.All(static c => c is >= ' ' and <= '~'))
            {
                throw new ArgumentException($"'{value}' is not a field value this server sends.", nameof(fields));
            }

            lines.Append(name).Append(": ").Append(value).Append("\r\n");
        }

        Fields = fields;
        _http1Lines = Encoding.ASCII.GetBytes(lines.ToString());
        Http2Fields = [.. fields.Select(static field => (Encoding.ASCII.GetBytes(field.Name.ToLowerInvariant()), Encoding.ASCII.GetBytes(field.Value)))];
    }

    /// <summary>The fields in the order given.</summary>
    public IReadOnlyList<(string Name, string Value)> Fields { get; }

    /// <summary>The fields as HTTP/1.1 field lines, each ending in CRLF (RFC 9112 §5).</summary>
    internal ReadOnlySpan<byte> Http1Lines => _http1Lines;

    /// <summary>The fields for HTTP/2's header blocks, each name lowercase (RFC 9113 §8.2.1).</summary>
    internal IReadOnlyList<(byte[] Name, byte[] Value)> Http2Fields { get; }

    // RFC 9110 §5.6.2: tchar.
    private static bool IsTokenChar(char c) => char.IsAsciiLetterOrDigit(c) || "!#$%&'*+-.^_`|~".Contains(c, StringComparison.Ordinal);
}
