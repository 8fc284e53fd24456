using System.Buffers.Binary;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

internal sealed partial class HttpParser
{
    // The names almost every request carries (all of TFB's, and a browser's most frequent), each with its colon.
    private static readonly FieldNamePattern s_host = new("host:"u8);
    private static readonly FieldNamePattern s_accept = new("accept:"u8);
    private static readonly FieldNamePattern s_acceptEncoding = new("accept-encoding:"u8);
    private static readonly FieldNamePattern s_acceptLanguage = new("accept-language:"u8);
    private static readonly FieldNamePattern s_connection = new("connection:"u8);
    private static readonly FieldNamePattern s_contentLength = new("content-length:"u8);
    private static readonly FieldNamePattern s_contentType = new("content-type:"u8);
    private static readonly FieldNamePattern s_cookie = new("cookie:"u8);
    private static readonly FieldNamePattern s_referer = new("referer:"u8);
    private static readonly FieldNamePattern s_userAgent = new("user-agent:"u8);

    /// <summary>
    /// The length of the field name at the start of <paramref name="line"/> when it is one of a few common names
    /// (any letter case) followed by its colon, else 0. A name recognised this way is known to be a token, so the
    /// well-formed path skips the character-class search that any other name needs: a couple of word compares
    /// instead of a vector search per field line. <paramref name="line"/> must hold at least 16 bytes.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int CommonFieldNameLength(ReadOnlySpan<byte> line)
    {
        Debug.Assert(line.Length >= 16, "Two words are read.");
        ulong first = BinaryPrimitives.ReadUInt64LittleEndian(line);

        // Bit 0x20 makes the first byte lowercase if it is a letter; no other byte becomes one of these letters.
        // Within a letter, the names are tried in order of how often they come (TFB's first); the first match wins.
        int length;
        switch ((byte)first | 0x20)
        {
            case 'h':
                return s_host.Matches(first, line);
            case 'a':
                return (length = s_accept.Matches(first, line)) != 0 ? length
                    : (length = s_acceptEncoding.Matches(first, line)) != 0 ? length
                    : s_acceptLanguage.Matches(first, line);
            case 'c':
                return (length = s_connection.Matches(first, line)) != 0 ? length
                    : (length = s_contentLength.Matches(first, line)) != 0 ? length
                    : (length = s_contentType.Matches(first, line)) != 0 ? length
                    : s_cookie.Matches(first, line);
            case 'r':
                return s_referer.Matches(first, line);
            case 'u':
                return s_userAgent.Matches(first, line);
            default:
                return 0;
        }
    }

    /// <summary>Whether <paramref name="afterColon"/> starts with <c>" keep-alive\r\n"</c>, exactly.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsKeepAliveLine(ReadOnlySpan<byte> afterColon) =>
        afterColon.Length >= 13
        && BinaryPrimitives.ReadUInt64LittleEndian(afterColon) == BinaryPrimitives.ReadUInt64LittleEndian(" keep-al"u8)
        && BinaryPrimitives.ReadUInt64LittleEndian(afterColon.Slice(5)) == BinaryPrimitives.ReadUInt64LittleEndian("-alive\r\n"u8);

    /// <summary>
    /// A lowercase field name with its colon, 2 to 16 bytes, as at most two little-endian words compared under a mask.
    /// Only letter positions are compared with bit 0x20 forced on (so either case matches); the colon and '-' are
    /// compared exactly, since forcing that bit would let control bytes (0x1A, CR) pass for them.
    /// </summary>
    private readonly struct FieldNamePattern
    {
        private readonly ulong _first;
        private readonly ulong _firstFold;
        private readonly ulong _firstMask;
        private readonly ulong _last;
        private readonly ulong _lastFold;
        private readonly ulong _lastMask;
        private readonly int _lastOffset;
        private readonly int _nameLength;

        public FieldNamePattern(ReadOnlySpan<byte> nameAndColon)
        {
            Debug.Assert(nameAndColon.Length is >= 2 and <= 16 && nameAndColon[^1] == (byte)':', "A short name and its colon.");
            _nameLength = nameAndColon.Length - 1;
            (_first, _firstFold, _firstMask) = Word(nameAndColon.Slice(0, Math.Min(8, nameAndColon.Length)));

            // Names longer than a word compare their last 8 bytes too (overlapping the first word when under 16); for
            // shorter ones the second compare is of nothing (mask 0), always true.
            if (nameAndColon.Length > 8)
            {
                _lastOffset = nameAndColon.Length - 8;
                (_last, _lastFold, _lastMask) = Word(nameAndColon.Slice(_lastOffset));
            }
        }

        /// <summary>The name's length when <paramref name="line"/> starts with it and its colon, else 0.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public int Matches(ulong first, ReadOnlySpan<byte> line) =>
            ((first | _firstFold) & _firstMask) == _first
            && ((BinaryPrimitives.ReadUInt64LittleEndian(line.Slice(_lastOffset)) | _lastFold) & _lastMask) == _last
                ? _nameLength
                : 0;

        private static (ulong Value, ulong Fold, ulong Mask) Word(ReadOnlySpan<byte> bytes)
        {
            ulong value = 0;
            ulong fold = 0;
            ulong mask = 0;
            for (int i = 0; i < bytes.Length; i++)
            {
                value |= (ulong)bytes[i] << (8 * i);
                mask |= 0xFFUL << (8 * i);
                if (char.IsAsciiLetterLower((char)bytes[i]))
                {
                    fold |= 0x20UL << (8 * i);
                }
            }

            return (value, fold, mask);
        }
    }
}
