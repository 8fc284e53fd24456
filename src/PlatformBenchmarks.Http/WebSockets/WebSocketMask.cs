using System.Buffers;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>
/// The client-to-server masking of RFC 6455 §5.3: payload byte i is XORed with byte (i mod 4) of the frame's 32-bit
/// key. The key is kept as a little-endian word whose lowest byte masks payload byte 0, so a word of payload takes the
/// key as it is, and continuing at payload offset n rotates it right by 8n bits.
/// </summary>
internal static class WebSocketMask
{
    /// <summary>The key read from the four bytes after the length, as this type keeps it.</summary>
    public static uint ReadKey(ReadOnlySpan<byte> keyBytes) => BinaryPrimitives.ReadUInt32LittleEndian(keyBytes);

    /// <summary>The key to continue with after <paramref name="offset"/> payload bytes.</summary>
    public static uint Rotate(uint key, long offset) => BitOperations.RotateRight(key, (int)(offset & 3) * 8);

    /// <summary>Unmasks <paramref name="data"/> in place, the key positioned for its first byte; returns the key for the byte after it.</summary>
    public static uint Apply(Span<byte> data, uint key)
    {
        int i = 0;
        if (data.Length >= 8)
        {
            ulong wide = key | ((ulong)key << 32);
            Span<ulong> words = MemoryMarshal.Cast<byte, ulong>(data);
            for (; i < words.Length; i++)
            {
                // Both byte orders read the word and write it back the same way: XOR with the key laid out as bytes.
                words[i] ^= BitConverter.IsLittleEndian ? wide : BinaryPrimitives.ReverseEndianness(wide);
            }

            i *= 8;
        }

        for (; i < data.Length; i++)
        {
            data[i] ^= (byte)key;
            key = BitOperations.RotateRight(key, 8);
        }

        return key;
    }

    /// <summary>
    /// Unmasks the bytes of <paramref name="data"/> where they lie: the connection's own receive buffer, whose masked
    /// bytes are never needed again. Returns the key for the byte after them.
    /// </summary>
    public static uint ApplyInPlace(in ReadOnlySequence<byte> data, uint key)
    {
        foreach (ReadOnlyMemory<byte> segment in data)
        {
            key = Apply(MemoryMarshal.AsMemory(segment).Span, key);
        }

        return key;
    }

    /// <summary>Copies <paramref name="data"/> unmasked into <paramref name="target"/>; returns the key for the byte after it.</summary>
    public static uint CopyUnmasked(in ReadOnlySequence<byte> data, Span<byte> target, uint key)
    {
        data.CopyTo(target);
        return Apply(target.Slice(0, (int)data.Length), key);
    }
}
