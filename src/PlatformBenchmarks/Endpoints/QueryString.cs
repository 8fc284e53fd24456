namespace PlatformBenchmarks.Endpoints;

/// <summary>Reads one parameter from a raw query string (<c>a=1&amp;b=2</c>), percent-decoding its value when needed.</summary>
internal static class QueryString
{
    /// <summary>
    /// The first value of <paramref name="name"/>, decoded into <paramref name="scratch"/> if it holds escapes.
    /// A missing parameter gives an empty value; an undecodable one gives the raw text, which then fails to parse.
    /// </summary>
    public static ReadOnlySpan<byte> GetValue(ReadOnlySpan<byte> query, ReadOnlySpan<byte> name, Span<byte> scratch)
    {
        foreach (Range range in query.Split((byte)'&'))
        {
            ReadOnlySpan<byte> pair = query[range];
            if (pair.Length > name.Length && pair[name.Length] == (byte)'=' && pair.StartsWith(name))
            {
                ReadOnlySpan<byte> value = pair[(name.Length + 1)..];
                return value.IndexOfAny((byte)'%', (byte)'+') < 0 ? value : Decode(value, scratch);
            }

            if (pair.SequenceEqual(name))
            {
                return default;
            }
        }

        return default;
    }

    private static ReadOnlySpan<byte> Decode(ReadOnlySpan<byte> value, Span<byte> scratch)
    {
        int length = 0;
        for (int i = 0; i < value.Length; i++)
        {
            if (length == scratch.Length)
            {
                return value;
            }

            byte b = value[i];
            if (b == (byte)'+')
            {
                scratch[length++] = (byte)' ';
            }
            else if (b == (byte)'%' && i + 2 < value.Length && IsHex(value[i + 1]) && IsHex(value[i + 2]))
            {
                scratch[length++] = (byte)((HexValue(value[i + 1]) << 4) | HexValue(value[i + 2]));
                i += 2;
            }
            else
            {
                scratch[length++] = b;
            }
        }

        return scratch[..length];
    }

    private static bool IsHex(byte b) => char.IsAsciiHexDigit((char)b);

    private static int HexValue(byte b) => b <= '9' ? b - '0' : (b | 0x20) - 'a' + 10;
}
