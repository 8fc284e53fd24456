using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>
/// The row count of the query, update and cached-query tests, sanitised the way TFB requires (docs/tfb-rules.md §5):
/// missing, empty, not an integer or below 1 gives 1; above 500 gives 500.
/// </summary>
internal static class QueryCount
{
    public const int Min = World.MinPerRequest;
    public const int Max = World.MaxPerRequest;

    /// <summary>Sanitises the raw (already percent-decoded) parameter value. Pure, allocation-free.</summary>
    public static int Clamp(ReadOnlySpan<byte> value)
    {
        // Mirrors Python's int(), which the verifier's expectations are written against: surrounding blanks and one sign
        // are accepted, anything else that is not a digit makes the value "not an integer".
        value = value.Trim(" \t"u8);
        bool negative = false;
        if (!value.IsEmpty && value[0] is (byte)'-' or (byte)'+')
        {
            negative = value[0] == (byte)'-';
            value = value[1..];
        }

        if (value.IsEmpty)
        {
            return Min;
        }

        int number = 0;
        foreach (byte b in value)
        {
            uint digit = (uint)(b - '0');
            if (digit > 9)
            {
                return Min;
            }

            // Saturate instead of overflowing: a value too large for int32 is still "an integer above 500" (§5).
            if (number <= Max)
            {
                number = (number * 10) + (int)digit;
            }
        }

        return negative || number < Min ? Min : Math.Min(number, Max);
    }
}
