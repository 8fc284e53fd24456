using System.Buffers;
using System.Text;
using System.Text.Unicode;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>
/// Checks a text message's bytes as they arrive, in pieces split anywhere (across frames, reads or segments), and says
/// no at the first byte that cannot begin valid UTF-8: RFC 6455 §8.1 fails the connection as soon as the stream is not
/// UTF-8, and a prefix that can still become a character is carried (up to 3 bytes) into the next piece.
/// </summary>
internal struct Utf8Validator
{
    // The bytes of a character begun at the end of the last piece, the first in the lowest byte.
    private uint _carried;
    private int _carriedCount;

    /// <summary>Whether the bytes so far end on a character's boundary: a message may end here.</summary>
    public readonly bool IsComplete => _carriedCount == 0;

    public void Reset() => _carriedCount = 0;

    public bool Append(in ReadOnlySequence<byte> data)
    {
        foreach (ReadOnlyMemory<byte> segment in data)
        {
            if (!Append(segment.Span))
            {
                return false;
            }
        }

        return true;
    }

    public bool Append(ReadOnlySpan<byte> data)
    {
        if (_carriedCount != 0)
        {
            if (!Complete(ref data))
            {
                return false;
            }

            if (_carriedCount != 0)
            {
                return true;
            }
        }

        // The usual text is ASCII: one vectorised check.
        return Ascii.IsValid(data) || AppendNonAscii(data);
    }

    private bool AppendNonAscii(ReadOnlySpan<byte> data)
    {
        int tail = IncompleteTailStart(data);
        if (!Utf8.IsValid(data.Slice(0, tail)))
        {
            return false;
        }

        ReadOnlySpan<byte> rest = data.Slice(tail);
        if (rest.IsEmpty)
        {
            return true;
        }

        // A valid prefix of a character is NeedMoreData; a prefix no character has (a surrogate's, one past U+10FFFF,
        // an overlong form's) is InvalidData already.
        if (Rune.DecodeFromUtf8(rest, out _, out _) != OperationStatus.NeedMoreData)
        {
            return false;
        }

        Carry(rest);
        return true;
    }

    /// <summary>Completes the character carried from the last piece with the first bytes of <paramref name="data"/>.</summary>
    private bool Complete(ref ReadOnlySpan<byte> data)
    {
        Span<byte> joined = stackalloc byte[4];
        for (int i = 0; i < _carriedCount; i++)
        {
            joined[i] = (byte)(_carried >> (8 * i));
        }

        int added = Math.Min(4 - _carriedCount, data.Length);
        data.Slice(0, added).CopyTo(joined.Slice(_carriedCount));
        int length = _carriedCount + added;
        OperationStatus status = Rune.DecodeFromUtf8(joined.Slice(0, length), out _, out int consumed);
        if (status == OperationStatus.Done)
        {
            data = data.Slice(consumed - _carriedCount);
            _carriedCount = 0;
            return true;
        }

        if (status == OperationStatus.NeedMoreData && added == data.Length)
        {
            // Still a prefix, and the piece is used up.
            Carry(joined.Slice(0, length));
            data = default;
            return true;
        }

        return false;
    }

    private void Carry(ReadOnlySpan<byte> prefix)
    {
        _carried = 0;
        for (int i = 0; i < prefix.Length; i++)
        {
            _carried |= (uint)prefix[i] << (8 * i);
        }

        _carriedCount = prefix.Length;
    }

    /// <summary>Where a character that the end of <paramref name="data"/> cuts short begins; the length when none does.</summary>
    private static int IncompleteTailStart(ReadOnlySpan<byte> data)
    {
        for (int i = data.Length - 1; i >= Math.Max(0, data.Length - 3); i--)
        {
            byte b = data[i];
            if ((b & 0xC0) == 0x80)
            {
                continue;
            }

            int needed = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
            return data.Length - i < needed ? i : data.Length;
        }

        return data.Length;
    }
}
