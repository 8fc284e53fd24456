using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace PlatformBenchmarks.Http.Tls.Aead;

/// <summary>
/// GHASH (NIST SP 800-38D §6.4): multiplication in GF(2^128) modulo x^128 + x^7 + x^2 + x + 1 with carry-less multiply.
/// </summary>
/// <remarks>
/// GCM numbers a block's bits from the first byte's high bit, the coefficient of x^0. With the block's bytes reversed,
/// the 128-bit little-endian integer holds x^0 in its top bit and x^127 in its bottom one: the field element, bit-
/// reflected. The carry-less product of two reflected elements is the reflected product one place short, so it is
/// shifted left by one; its low half then holds the terms of degree 128 and up, which are folded back by
/// x^128 = x^7 + x^2 + x + 1.
/// </remarks>
internal sealed partial class X86AesGcm
{
    /// <summary>A block's bytes in reverse: GCM's bit order as a reflected field element.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> ToField(Vector128<byte> block) =>
        Ssse3.Shuffle(block, Vector128.Create((byte)15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)).AsUInt64();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> FromField(Vector128<ulong> element) =>
        Ssse3.Shuffle(element.AsByte(), Vector128.Create((byte)15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));

    private static Vector128<ulong> Multiply(Vector128<ulong> a, Vector128<ulong> b)
    {
        Vector128<ulong> low = Vector128<ulong>.Zero;
        Vector128<ulong> middle = Vector128<ulong>.Zero;
        Vector128<ulong> high = Vector128<ulong>.Zero;
        MultiplyAdd(a, b, ref low, ref middle, ref high);
        return Reduce(low, middle, high);
    }

    /// <summary>Adds the 256-bit carry-less product of <paramref name="a"/> and <paramref name="b"/>, in three parts.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void MultiplyAdd(Vector128<ulong> a, Vector128<ulong> b, ref Vector128<ulong> low, ref Vector128<ulong> middle, ref Vector128<ulong> high)
    {
        // The immediate's bit 0 picks a's half, bit 4 b's.
        low ^= Pclmulqdq.CarrylessMultiply(a, b, 0x00);
        high ^= Pclmulqdq.CarrylessMultiply(a, b, 0x11);
        middle ^= Pclmulqdq.CarrylessMultiply(a, b, 0x01) ^ Pclmulqdq.CarrylessMultiply(a, b, 0x10);
    }

    /// <summary>The field element of a 256-bit product: shifted into place and reduced.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Reduce(Vector128<ulong> low, Vector128<ulong> middle, Vector128<ulong> high)
    {
        low ^= Sse2.ShiftLeftLogical128BitLane(middle, 8);
        high ^= Sse2.ShiftRightLogical128BitLane(middle, 8);

        // One place left across all 256 bits: each 64-bit word's top bit moves to the next word's bottom.
        Vector128<ulong> lowCarry = Sse2.ShiftRightLogical(low, 63);
        Vector128<ulong> highCarry = Sse2.ShiftRightLogical(high, 63);
        low = Sse2.ShiftLeftLogical(low, 1) | Sse2.ShiftLeftLogical128BitLane(lowCarry, 8);
        high = Sse2.ShiftLeftLogical(high, 1) | Sse2.ShiftLeftLogical128BitLane(highCarry, 8) | Sse2.ShiftRightLogical128BitLane(lowCarry, 8);

        // The low half L stands for x^128 * L, that is L * (1 + x + x^2 + x^7): L and L shifted right by 1, 2 and 7. The
        // bits those shifts push out below bit 0 stand for x^128 again; they are small (degree under 7), so they are put
        // back at the top of L first and come out of the same three shifts without spilling.
        Vector128<ulong> spill = Sse2.ShiftLeftLogical(low, 63) ^ Sse2.ShiftLeftLogical(low, 62) ^ Sse2.ShiftLeftLogical(low, 57);
        Vector128<ulong> folded = low ^ Sse2.ShiftLeftLogical128BitLane(spill, 8);
        return high ^ folded ^ ShiftRight(folded, 1, 63) ^ ShiftRight(folded, 2, 62) ^ ShiftRight(folded, 7, 57);
    }

    /// <summary>A 128-bit logical shift right by <paramref name="count"/> places, 1 to 63, with 64 less it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> ShiftRight(Vector128<ulong> value, [ConstantExpected(Min = 1, Max = 63)] byte count, [ConstantExpected(Min = 1, Max = 63)] byte complement) =>
        Sse2.ShiftRightLogical(value, count) | Sse2.ShiftRightLogical128BitLane(Sse2.ShiftLeftLogical(value, complement), 8);

    /// <summary>Folds whole blocks (a multiple of 16 bytes) into <paramref name="y"/>.</summary>
    private Vector128<ulong> Hash(Vector128<ulong> y, ReadOnlySpan<byte> blocks)
    {
        ref byte data = ref MemoryMarshal.GetReference(blocks);
        int count = blocks.Length / BlockLength;
        int done = 0;
        // Invariant: (done + Batch) * BlockLength <= blocks.Length before each batch.
        while (count - done >= Batch)
        {
            y = HashBatch(y, ref Unsafe.Add(ref data, done * BlockLength));
            done += Batch;
        }

        int rest = count - done;
        if (rest == 0)
        {
            return y;
        }

        // Y' = (Y + X1) H^n + X2 H^(n-1) + ... + Xn H, with one reduction for the n blocks.
        ref Vector128<byte> powers = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_state), MaxRounds + 1);
        Vector128<ulong> low = Vector128<ulong>.Zero;
        Vector128<ulong> middle = Vector128<ulong>.Zero;
        Vector128<ulong> high = Vector128<ulong>.Zero;
        for (int i = 0; i < rest; i++)
        {
            Vector128<ulong> x = ToField(Vector128.LoadUnsafe(ref data, (nuint)((done + i) * BlockLength)));
            if (i == 0)
            {
                x ^= y;
            }

            MultiplyAdd(x, Unsafe.Add(ref powers, rest - 1 - i).AsUInt64(), ref low, ref middle, ref high);
        }

        return Reduce(low, middle, high);
    }

    /// <summary>Folds eight blocks from <paramref name="data"/> into <paramref name="y"/>: the caller holds 128 bytes there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Vector128<ulong> HashBatch(Vector128<ulong> y, ref byte data)
    {
        ref Vector128<byte> powers = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_state), MaxRounds + 1);
        Vector128<ulong> low = Vector128<ulong>.Zero;
        Vector128<ulong> middle = Vector128<ulong>.Zero;
        Vector128<ulong> high = Vector128<ulong>.Zero;
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data)) ^ y, Unsafe.Add(ref powers, 7).AsUInt64(), ref low, ref middle, ref high);
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data, 16)), Unsafe.Add(ref powers, 6).AsUInt64(), ref low, ref middle, ref high);
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data, 32)), Unsafe.Add(ref powers, 5).AsUInt64(), ref low, ref middle, ref high);
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data, 48)), Unsafe.Add(ref powers, 4).AsUInt64(), ref low, ref middle, ref high);
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data, 64)), Unsafe.Add(ref powers, 3).AsUInt64(), ref low, ref middle, ref high);
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data, 80)), Unsafe.Add(ref powers, 2).AsUInt64(), ref low, ref middle, ref high);
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data, 96)), Unsafe.Add(ref powers, 1).AsUInt64(), ref low, ref middle, ref high);
        MultiplyAdd(ToField(Vector128.LoadUnsafe(ref data, 112)), powers.AsUInt64(), ref low, ref middle, ref high);
        return Reduce(low, middle, high);
    }
}
