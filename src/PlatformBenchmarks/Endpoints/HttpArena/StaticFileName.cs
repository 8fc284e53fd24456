using System.Buffers;
using System.Text.Unicode;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The file name of a <c>/static/</c> request: the rest of the path, percent-decoded (RFC 3986 §2.1), accepted only when
/// every segment is a plain name. What could leave the directory or confuse a file system is refused before any disk
/// access: an empty segment (so no absolute path and no <c>//</c>), <c>.</c> and <c>..</c> (escaped or not), NUL and
/// other control characters, a backslash, a bad escape and bytes that are not UTF-8. A symbolic link is judged later,
/// by where it points (<see cref="ContainedPath"/>).
/// </summary>
internal static class StaticFileName
{
    /// <summary>The longest name accepted, in bytes once decoded; a longer one is no file here.</summary>
    public const int MaxLength = 512;

    private static readonly SearchValues<byte> s_refused = SearchValues.Create([.. Enumerable.Range(0, 0x20).Select(b => (byte)b), 0x7F, (byte)'\\']);

    /// <summary>Decodes <paramref name="raw"/> into <paramref name="name"/> (at least <see cref="MaxLength"/> chars); false when refused.</summary>
    public static bool TryDecode(ReadOnlySpan<byte> raw, Span<char> name, out int length)
    {
        length = 0;
        if (raw.IsEmpty || raw.Length > 3 * MaxLength)
        {
            return false;
        }

        Span<byte> decoded = stackalloc byte[MaxLength];
        int count = 0;
        for (int i = 0; i < raw.Length; i++)
        {
            byte b = raw[i];
            if (b == (byte)'%')
            {
                if (i + 2 >= raw.Length || !char.IsAsciiHexDigit((char)raw[i + 1]) || !char.IsAsciiHexDigit((char)raw[i + 2]))
                {
                    return false;
                }

                b = (byte)((HexValue(raw[i + 1]) << 4) | HexValue(raw[i + 2]));
                i += 2;
            }

            if (count == decoded.Length)
            {
                return false;
            }

            decoded[count++] = b;
        }

        decoded = decoded[..count];
        if (decoded.ContainsAny(s_refused) || !SegmentsArePlainNames(decoded))
        {
            return false;
        }

        return Utf8.ToUtf16(decoded, name, out _, out length, replaceInvalidSequences: false) == OperationStatus.Done;
    }

    private static bool SegmentsArePlainNames(ReadOnlySpan<byte> decoded)
    {
        foreach (Range range in decoded.Split((byte)'/'))
        {
            ReadOnlySpan<byte> segment = decoded[range];
            if (segment.IsEmpty || segment.SequenceEqual("."u8) || segment.SequenceEqual(".."u8))
            {
                return false;
            }
        }

        return true;
    }

    private static int HexValue(byte b) => b <= '9' ? b - '0' : (b | 0x20) - 'a' + 10;
}
