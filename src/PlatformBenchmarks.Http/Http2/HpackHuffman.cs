using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// The Huffman code of RFC 7541 Appendix B. The code is canonical (codes of one length are consecutive, in symbol
/// order, after the shorter ones), so it is built here from its lengths alone. Decoding walks a table of transitions
/// four bits at a time: each of the code tree's 256 inner nodes has 16 transitions, each naming the node it lands on,
/// the symbol it completes (at most one, since no code is shorter than five bits), and whether the string may end
/// there (§5.2: the padding is at most 7 bits, all ones), or that it reached EOS, which a string must not hold.
/// </summary>
internal static class HpackHuffman
{
    public const int EndOfString = 256;

    // RFC 7541 Appendix B: the bit length of each symbol's code, symbols 0 to 256 (EOS).
    private static ReadOnlySpan<byte> CodeLengths =>
    [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0-15
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 16-31
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, // ' ' to '/'
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, // '0' to '?'
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, // '@' to 'O'
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, // 'P' to '_'
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, // '`' to 'o'
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, // 'p' to 127
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128-143
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144-159
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160-175
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176-191
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192-207
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208-223
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224-239
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240-255
        30, // EOS
    ];

    // A decoding transition: the next node in the low byte, the symbol in the next, then the flags.
    private const uint Emits = 1 << 16;
    private const uint Fails = 1 << 17;
    private const uint MayEnd = 1 << 18;

    private static readonly uint[] s_codes = BuildCodes();
    private static readonly uint[] s_transitions = BuildTransitions();

    /// <summary>The code of <paramref name="symbol"/>, right-aligned, and its length in bits.</summary>
    public static (uint Code, int Length) Code(int symbol) => (s_codes[symbol], CodeLengths[symbol]);

    /// <summary>
    /// Decodes <paramref name="source"/> into <paramref name="destination"/> and returns the number of bytes written:
    /// -1 when the input is not a valid code (EOS in it, or padding longer than 7 bits or not all ones, §5.2), -2 when
    /// the decoded string does not fit. A string decodes to at most <c>source.Length * 8 / 5</c> bytes.
    /// </summary>
    public static int Decode(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        ref uint transitions = ref MemoryMarshal.GetArrayDataReference(s_transitions);
        uint state = 0;
        uint transition = MayEnd;
        int written = 0;
        foreach (byte input in source)
        {
            transition = Unsafe.Add(ref transitions, (nint)((state << 4) | (uint)(input >> 4)));
            if ((transition & (Emits | Fails)) != 0)
            {
                if (!Emit(transition, destination, ref written))
                {
                    return (transition & Fails) != 0 ? -1 : -2;
                }
            }

            state = transition & 0xFF;
            transition = Unsafe.Add(ref transitions, (nint)((state << 4) | (uint)(input & 0xF)));
            if ((transition & (Emits | Fails)) != 0)
            {
                if (!Emit(transition, destination, ref written))
                {
                    return (transition & Fails) != 0 ? -1 : -2;
                }
            }

            state = transition & 0xFF;
        }

        return (transition & MayEnd) != 0 ? written : -1;
    }

    /// <summary>The length in bytes of <paramref name="source"/> Huffman coded, padding included.</summary>
    public static int EncodedLength(ReadOnlySpan<byte> source)
    {
        ReadOnlySpan<byte> lengths = CodeLengths;
        long bits = 0;
        foreach (byte symbol in source)
        {
            bits += lengths[symbol];
        }

        return (int)((bits + 7) >> 3);
    }

    /// <summary>
    /// Writes <paramref name="source"/> Huffman coded, padded with the most significant bits of EOS (§5.2), into
    /// <paramref name="destination"/>, which must hold <see cref="EncodedLength"/> bytes; returns that length.
    /// </summary>
    public static int Encode(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        ReadOnlySpan<byte> lengths = CodeLengths;
        uint[] codes = s_codes;
        ulong pending = 0;
        int pendingBits = 0;
        int written = 0;
        foreach (byte symbol in source)
        {
            // At most 7 bits wait from the last symbol, and a code has at most 30: they fit in the 64.
            pending = (pending << lengths[symbol]) | codes[symbol];
            pendingBits += lengths[symbol];
            while (pendingBits >= 8)
            {
                pendingBits -= 8;
                destination[written++] = (byte)(pending >> pendingBits);
            }
        }

        if (pendingBits > 0)
        {
            int padding = 8 - pendingBits;
            destination[written++] = (byte)((pending << padding) | ((1u << padding) - 1));
        }

        return written;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool Emit(uint transition, Span<byte> destination, ref int written)
    {
        if ((transition & Fails) != 0 || (uint)written >= (uint)destination.Length)
        {
            return false;
        }

        destination[written++] = (byte)(transition >> 8);
        return true;
    }

    private static uint[] BuildCodes()
    {
        // Canonical assignment: walk the lengths upwards; within a length, symbols in order take consecutive codes.
        uint[] codes = new uint[EndOfString + 1];
        uint code = 0;
        int previousLength = 0;
        for (int length = 1; length <= 30; length++)
        {
            for (int symbol = 0; symbol <= EndOfString; symbol++)
            {
                if (CodeLengths[symbol] == length)
                {
                    code <<= length - previousLength;
                    previousLength = length;
                    codes[symbol] = code++;
                }
            }
        }

        return codes;
    }

    private static uint[] BuildTransitions()
    {
        // The code tree: inner node n has children at 2n (bit 0) and 2n+1 (bit 1); a child >= 0 is an inner node, a
        // child < 0 is the leaf of symbol ~child. Node 0 is the root.
        int[] children = new int[2 * EndOfString];
        int nodes = 1;
        for (int symbol = 0; symbol <= EndOfString; symbol++)
        {
            int length = CodeLengths[symbol];
            uint code = s_codes[symbol];
            int node = 0;
            for (int bit = length - 1; bit > 0; bit--)
            {
                int slot = (2 * node) + (int)((code >> bit) & 1);
                if (children[slot] == 0)
                {
                    children[slot] = nodes++;
                }

                node = children[slot];
            }

            children[(2 * node) + (int)(code & 1)] = ~symbol;
        }

        // A string may end at the root, or on the all-ones path at most 7 bits below it (§5.2).
        bool[] mayEnd = new bool[EndOfString];
        for (int node = 0, depth = 0; depth <= 7; node = children[(2 * node) + 1], depth++)
        {
            mayEnd[node] = true;
        }

        uint[] transitions = new uint[EndOfString * 16];
        for (int state = 0; state < EndOfString; state++)
        {
            for (int nibble = 0; nibble < 16; nibble++)
            {
                int node = state;
                uint transition = 0;
                for (int bit = 3; bit >= 0; bit--)
                {
                    int child = children[(2 * node) + ((nibble >> bit) & 1)];
                    if (child >= 0)
                    {
                        node = child;
                    }
                    else if (~child == EndOfString)
                    {
                        transition = Fails;
                        break;
                    }
                    else
                    {
                        transition = Emits | ((uint)~child << 8);
                        node = 0;
                    }
                }

                transitions[(state * 16) + nibble] = (transition & Fails) != 0
                    ? Fails
                    : transition | (uint)node | (mayEnd[node] ? MayEnd : 0);
            }
        }

        return transitions;
    }
}
