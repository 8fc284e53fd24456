namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The parameters of <c>GET /async-db?min=&amp;max=&amp;limit=</c>, read as HttpArena's async-database implementation.md
/// says: integers, min 10, max 50 and limit 50 when missing or empty, limit clamped to 1..50. An integer beyond 32 bits
/// is clamped too (to the int range for min and max, which selects the same rows of an integer column). Anything that
/// is not an integer is refused with its reason, for a 400.
/// </summary>
internal readonly record struct AsyncDatabaseQuery(int Min, int Max, int Limit)
{
    public const int DefaultMin = 10;
    public const int DefaultMax = 50;
    public const int DefaultLimit = 50;

    public static bool TryParse(ReadOnlySpan<byte> query, out AsyncDatabaseQuery parsed, [System.Diagnostics.CodeAnalysis.NotNullWhen(false)] out string? error)
    {
        parsed = default;
        Span<byte> scratch = stackalloc byte[32];
        if (!TryReadInteger(QueryString.GetValue(query, "min"u8, scratch), DefaultMin, out int min))
        {
            error = "Query parameter 'min' must be an integer.\n";
            return false;
        }

        if (!TryReadInteger(QueryString.GetValue(query, "max"u8, scratch), DefaultMax, out int max))
        {
            error = "Query parameter 'max' must be an integer.\n";
            return false;
        }

        if (!TryReadInteger(QueryString.GetValue(query, "limit"u8, scratch), DefaultLimit, out int limit))
        {
            error = "Query parameter 'limit' must be an integer.\n";
            return false;
        }

        error = null;
        parsed = new AsyncDatabaseQuery(min, max, Math.Clamp(limit, 1, Data.HttpArenaItem.MaxPerRequest));
        return true;
    }

    /// <summary>An optional sign and decimal digits, saturated to the int range; empty gives <paramref name="fallback"/>.</summary>
    internal static bool TryReadInteger(ReadOnlySpan<byte> text, int fallback, out int value)
    {
        value = fallback;
        if (text.IsEmpty)
        {
            return true;
        }

        bool negative = text[0] == (byte)'-';
        ReadOnlySpan<byte> digits = text[0] is (byte)'-' or (byte)'+' ? text[1..] : text;
        if (digits.IsEmpty)
        {
            return false;
        }

        long magnitude = 0;
        foreach (byte digit in digits)
        {
            if (!char.IsAsciiDigit((char)digit))
            {
                return false;
            }

            // Past int's range the value saturates; the loop still checks every remaining byte is a digit.
            magnitude = Math.Min((magnitude * 10) + (digit - '0'), (long)int.MaxValue + 1);
        }

        value = (int)Math.Clamp(negative ? -magnitude : magnitude, int.MinValue, int.MaxValue);
        return true;
    }
}
