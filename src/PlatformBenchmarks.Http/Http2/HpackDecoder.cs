using System.Buffers;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// A streaming HPACK decoder (RFC 7541) for the header blocks of one connection. It is fed a block's fragments as they
/// arrive (a HEADERS frame's, then each CONTINUATION's) and hands each field to a sink as soon as it is whole. A field
/// representation is read from the fragment in place: raw strings as spans of it, Huffman strings decoded into one
/// reusable buffer. Only a representation cut by a fragment's end is copied, into a pending buffer that grows to the
/// bytes it needs and no further, so a block costs the same however it is cut.
/// <para>
/// Bounded by construction: the decoded header list is counted as it is decoded (name + value + 32 per field, RFC 9113
/// §6.5.2), and once a field would take it past SETTINGS_MAX_HEADER_LIST_SIZE no more fields are handed on, so an HPACK
/// bomb (many references to one large dynamic entry) costs at most that many bytes of copying and a few operations
/// per further byte of input. The block is still decoded to its end, keeping the dynamic table in step with the
/// peer's, and ends in <see cref="HpackError.HeaderListTooLarge"/>, which a connection may answer with 431. A string
/// longer than any field could be is refused before it is buffered (<see cref="HpackError.StringTooLong"/>).
/// </para>
/// One decoder serves one connection's received blocks, one block at a time; it is not thread-safe.
/// </summary>
internal sealed class HpackDecoder
{
    // An integer takes at most this many bytes after its prefix (§5.1): 28 bits of value, more than any limit here.
    private const int MaxIntegerContinuations = 4;

    private readonly HpackDynamicTable _table;
    private readonly int _maxHeaderListSize;

    // The longest string kept (decoded), and the longest literal accepted as sent, raw or Huffman coded (a Huffman
    // code is at least 5 bits a byte, so a longer one cannot decode to less).
    private readonly int _maxStringLength;
    private readonly int _maxHuffmanLength;

    // Decoded Huffman strings of the current field: the name first, the value after it.
    private byte[] _strings = [];

    // The start of a representation cut by the end of a fragment, and a lower bound of its whole length.
    private byte[] _pending = [];
    private int _pendingLength;
    private int _pendingNeeded;

    // The largest table size the peer may ask for: SETTINGS_HEADER_TABLE_SIZE as this side's peer has acknowledged it.
    private int _allowedTableSize;
    private bool _sizeUpdateRequired;

    // The block being decoded.
    private int _headerListSize;
    private bool _overLimit;
    private bool _fieldSeen;

    /// <param name="maxTableSize">The SETTINGS_HEADER_TABLE_SIZE this side sends (4096 unless it sends another).</param>
    /// <param name="maxHeaderListSize">The SETTINGS_MAX_HEADER_LIST_SIZE this side sends and enforces.</param>
    public HpackDecoder(int maxTableSize, int maxHeaderListSize)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxTableSize);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxHeaderListSize);
        _table = new HpackDynamicTable(maxTableSize);
        _allowedTableSize = maxTableSize;
        _maxHeaderListSize = maxHeaderListSize;
        _maxStringLength = Math.Max(maxHeaderListSize, maxTableSize);
        _maxHuffmanLength = (int)Math.Min(int.MaxValue / 2, (8L * _maxStringLength / 5) + 8);
    }

    public HpackDynamicTable DynamicTable => _table;

    public int MaxHeaderListSize => _maxHeaderListSize;

    /// <summary>
    /// A new SETTINGS_HEADER_TABLE_SIZE (at most the one given at construction) once the peer has acknowledged it. When
    /// it is below the table's current size, the peer's next block must start with a size update (§4.2).
    /// </summary>
    public void SetAllowedTableSize(int size)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(size, _table.Capacity);
        ArgumentOutOfRangeException.ThrowIfNegative(size);
        _allowedTableSize = size;
        _sizeUpdateRequired |= size < _table.MaxSize;
    }

    /// <summary>Decodes a fragment of a header block held in a sequence, segment by segment.</summary>
    public HpackError Decode<TSink>(in ReadOnlySequence<byte> fragment, bool endHeaders, ref TSink sink)
        where TSink : struct, IHpackFieldSink
    {
        if (fragment.IsSingleSegment)
        {
            return Decode(fragment.FirstSpan, endHeaders, ref sink);
        }

        foreach (ReadOnlyMemory<byte> segment in fragment)
        {
            HpackError error = Decode(segment.Span, endHeaders: false, ref sink);
            if (error != HpackError.None)
            {
                return error;
            }
        }

        return endHeaders ? EndBlock() : HpackError.None;
    }

    /// <summary>
    /// Decodes the next fragment of the current header block, handing each whole field to <paramref name="sink"/>;
    /// <paramref name="endHeaders"/> says the fragment ends the block (END_HEADERS). Any error but
    /// <see cref="HpackError.HeaderListTooLarge"/> leaves the decoder out of step with the peer: the connection ends
    /// with COMPRESSION_ERROR (RFC 9113 §4.3).
    /// </summary>
    public HpackError Decode<TSink>(ReadOnlySpan<byte> fragment, bool endHeaders, ref TSink sink)
        where TSink : struct, IHpackFieldSink
    {
        if (_pendingLength != 0)
        {
            int resumed = ResumePending(ref fragment, ref sink);
            if (resumed < 0)
            {
                return Fail((HpackError)(-resumed));
            }
        }

        while (!fragment.IsEmpty)
        {
            int result = DecodeRepresentation(fragment, ref sink, out int needed);
            if (result > 0)
            {
                fragment = fragment.Slice(result);
                continue;
            }

            if (result < 0)
            {
                return Fail((HpackError)(-result));
            }

            Keep(fragment, needed);
            break;
        }

        return endHeaders ? EndBlock() : HpackError.None;
    }

    private HpackError EndBlock()
    {
        HpackError error = _pendingLength != 0 ? HpackError.Truncated
            : _sizeUpdateRequired ? HpackError.SizeUpdateMissing
            : _overLimit ? HpackError.HeaderListTooLarge
            : HpackError.None;
        ResetBlock();
        return error;
    }

    private HpackError Fail(HpackError error)
    {
        ResetBlock();
        return error;
    }

    private void ResetBlock()
    {
        _pendingLength = 0;
        _pendingNeeded = 0;
        _headerListSize = 0;
        _overLimit = false;
        _fieldSeen = false;
    }

    /// <summary>
    /// Decodes the representation at the start of <paramref name="input"/>: returns the bytes it took, 0 when
    /// <paramref name="input"/> ends inside it (<paramref name="needed"/> is then a lower bound of its length), or an
    /// error negated. Where its parts lie is found first, and only a whole representation is decoded.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int DecodeRepresentation<TSink>(ReadOnlySpan<byte> input, ref TSink sink, out int needed)
        where TSink : struct, IHpackFieldSink
    {
        needed = input.Length + 1;
        byte first = input[0];
        int position = 0;
        int result;
        if ((first & 0x80) != 0)
        {
            // §6.1: an indexed field.
            result = ReadInteger(input, ref position, 7, out int index);
            return result <= 0 ? result : Outcome(EmitIndexed(index, ref sink), position);
        }

        int prefix;
        if ((first & 0xC0) == 0x40)
        {
            // §6.2.1: a literal with incremental indexing.
            prefix = 6;
        }
        else if ((first & 0xE0) == 0x20)
        {
            // §6.3: a dynamic table size update.
            result = ReadInteger(input, ref position, 5, out int size);
            return result <= 0 ? result : Outcome(UpdateSize(size), position);
        }
        else
        {
            // §6.2.2 and §6.2.3: a literal without indexing, or never indexed.
            prefix = 4;
        }

        result = ReadInteger(input, ref position, prefix, out int nameIndex);
        if (result <= 0)
        {
            return result;
        }

        StringLiteral name = default;
        if (nameIndex == 0 && (result = ReadStringLength(input, ref position, out name, ref needed)) <= 0)
        {
            return result;
        }

        if ((result = ReadStringLength(input, ref position, out StringLiteral value, ref needed)) <= 0)
        {
            return result;
        }

        return Outcome(EmitLiteral(input, first, nameIndex, name, value, ref sink), position);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Outcome(HpackError error, int consumed) => error == HpackError.None ? consumed : -(int)error;

    /// <summary>Reads a string's length and skips its bytes; 0 with <paramref name="needed"/> when they are not all here.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int ReadStringLength(ReadOnlySpan<byte> input, ref int position, out StringLiteral literal, ref int needed)
    {
        literal = default;
        if (position >= input.Length)
        {
            return 0;
        }

        bool huffman = (input[position] & 0x80) != 0;
        int result = ReadInteger(input, ref position, 7, out int length);
        if (result <= 0)
        {
            return result;
        }

        if (length > (huffman ? _maxHuffmanLength : _maxStringLength))
        {
            return -(int)HpackError.StringTooLong;
        }

        literal = new StringLiteral(position, length, huffman);
        position += length;
        if (position > input.Length)
        {
            needed = position;
            return 0;
        }

        return 1;
    }

    /// <summary>
    /// Reads an integer with an <paramref name="prefixBits"/>-bit prefix (§5.1) at <paramref name="position"/>: 1 when
    /// read, 0 when the input ends inside it, or <see cref="HpackError.IntegerOverflow"/> negated.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int ReadInteger(ReadOnlySpan<byte> input, ref int position, int prefixBits, out int value)
    {
        int mask = (1 << prefixBits) - 1;
        value = input[position++] & mask;
        if (value < mask)
        {
            return 1;
        }

        return ReadIntegerContinuation(input, ref position, ref value);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int ReadIntegerContinuation(ReadOnlySpan<byte> input, ref int position, ref int value)
    {
        for (int shift = 0; shift < 7 * MaxIntegerContinuations; shift += 7)
        {
            if (position >= input.Length)
            {
                return 0;
            }

            byte next = input[position++];
            value += (next & 0x7F) << shift;
            if ((next & 0x80) == 0)
            {
                return 1;
            }
        }

        return -(int)HpackError.IntegerOverflow;
    }

    private HpackError EmitIndexed<TSink>(int index, ref TSink sink)
        where TSink : struct, IHpackFieldSink
    {
        HpackError error = BeginField();
        if (error != HpackError.None)
        {
            return error;
        }

        if ((uint)(index - 1) < HpackStaticTable.Count)
        {
            Emit(index, HpackStaticTable.Name(index), HpackStaticTable.Value(index), neverIndexed: false, ref sink);
            return HpackError.None;
        }

        int dynamicIndex = index - HpackStaticTable.Count - 1;
        if ((uint)dynamicIndex >= (uint)_table.Count)
        {
            return HpackError.InvalidIndex;
        }

        int staticNameIndex = _table.Get(dynamicIndex, out ReadOnlySpan<byte> name, out ReadOnlySpan<byte> value);
        Emit(staticNameIndex, name, value, neverIndexed: false, ref sink);
        return HpackError.None;
    }

    private HpackError EmitLiteral<TSink>(ReadOnlySpan<byte> input, byte first, int nameIndex, StringLiteral nameLiteral, StringLiteral valueLiteral, ref TSink sink)
        where TSink : struct, IHpackFieldSink
    {
        HpackError error = BeginField();
        if (error != HpackError.None)
        {
            return error;
        }

        bool indexing = (first & 0xC0) == 0x40;
        ReadOnlySpan<byte> name;
        int staticNameIndex;
        int nameLength;
        if (nameIndex == 0)
        {
            staticNameIndex = 0;
            nameLength = ReadString(input, nameLiteral, 0, indexing, out name);
        }
        else if ((uint)(nameIndex - 1) < HpackStaticTable.Count)
        {
            staticNameIndex = nameIndex;
            name = HpackStaticTable.Name(nameIndex);
            nameLength = 0;
        }
        else if ((uint)(nameIndex - HpackStaticTable.Count - 1) < (uint)_table.Count)
        {
            staticNameIndex = _table.Get(nameIndex - HpackStaticTable.Count - 1, out name, out _);
            nameLength = 0;
        }
        else
        {
            return HpackError.InvalidIndex;
        }

        if (nameLength < 0)
        {
            return (HpackError)(-nameLength);
        }

        int valueLength = 0;
        ReadOnlySpan<byte> value = default;
        if (nameLength == int.MaxValue || (valueLength = ReadString(input, valueLiteral, nameLength, indexing, out value)) == int.MaxValue)
        {
            // A string too long to keep is over the list's limit, and over the table's size: indexed, it empties the table.
            _overLimit = true;
            if (indexing)
            {
                _table.EvictAll();
            }

            return HpackError.None;
        }

        if (valueLength < 0)
        {
            return (HpackError)(-valueLength);
        }

        Emit(staticNameIndex, name, value, neverIndexed: (first & 0xF0) == 0x10, ref sink);
        if (indexing)
        {
            _table.Add(name, value, staticNameIndex);
        }

        return HpackError.None;
    }

    /// <summary>
    /// The string <paramref name="literal"/>: raw, a span of the input; Huffman coded, decoded into the strings buffer at
    /// <paramref name="offset"/>. Returns the length taken in that buffer, int.MaxValue when the string is longer than
    /// any kept, or an error negated. A string no one will read (past the limit, not indexed) is not decoded.
    /// </summary>
    private int ReadString(ReadOnlySpan<byte> input, StringLiteral literal, int offset, bool indexing, out ReadOnlySpan<byte> text)
    {
        ReadOnlySpan<byte> coded = input.Slice(literal.Start, literal.Length);
        if (!literal.Huffman)
        {
            text = coded;
            return 0;
        }

        if (_overLimit && !indexing)
        {
            text = default;
            return 0;
        }

        int room = Math.Min(_maxStringLength, (int)((8L * literal.Length) / 5));
        if (_strings.Length < offset + room)
        {
            Array.Resize(ref _strings, Math.Max(offset + room, Math.Min(2 * _strings.Length, 2 * _maxStringLength)));
        }

        int decoded = HpackHuffman.Decode(coded, _strings.AsSpan(offset, room));
        if (decoded == -1)
        {
            text = default;
            return -(int)HpackError.InvalidHuffman;
        }

        if (decoded == -2)
        {
            text = default;
            return int.MaxValue;
        }

        text = _strings.AsSpan(offset, decoded);
        return decoded;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Emit<TSink>(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, bool neverIndexed, ref TSink sink)
        where TSink : struct, IHpackFieldSink
    {
        if (_overLimit)
        {
            return;
        }

        int size = name.Length + value.Length + HpackDynamicTable.EntryOverhead;
        if (size > _maxHeaderListSize - _headerListSize)
        {
            _overLimit = true;
            return;
        }

        _headerListSize += size;
        sink.OnField(staticNameIndex, name, value, neverIndexed);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private HpackError BeginField()
    {
        if (_fieldSeen)
        {
            return HpackError.None;
        }

        _fieldSeen = true;
        return _sizeUpdateRequired ? HpackError.SizeUpdateMissing : HpackError.None;
    }

    private HpackError UpdateSize(int size)
    {
        if (_fieldSeen)
        {
            return HpackError.SizeUpdateNotAtStart;
        }

        if ((uint)size > (uint)_allowedTableSize)
        {
            return HpackError.SizeUpdateTooLarge;
        }

        _table.SetMaxSize(size);
        _sizeUpdateRequired = false;
        return HpackError.None;
    }

    /// <summary>Keeps the start of a representation that the fragment cut, to be completed by the next.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Keep(ReadOnlySpan<byte> rest, int needed)
    {
        EnsurePending(Math.Max(needed, rest.Length));
        rest.CopyTo(_pending);
        _pendingLength = rest.Length;
        _pendingNeeded = needed;
    }

    /// <summary>
    /// Completes the pending representation from <paramref name="fragment"/>, taking only the bytes it needs: 1 when it
    /// was decoded, 0 when the fragment ended first (all of it is then pending), or an error negated.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private int ResumePending<TSink>(ref ReadOnlySpan<byte> fragment, ref TSink sink)
        where TSink : struct, IHpackFieldSink
    {
        while (true)
        {
            int take = Math.Min(_pendingNeeded - _pendingLength, fragment.Length);
            EnsurePending(_pendingNeeded);
            fragment.Slice(0, take).CopyTo(_pending.AsSpan(_pendingLength));
            _pendingLength += take;
            fragment = fragment.Slice(take);
            if (_pendingLength < _pendingNeeded)
            {
                return 0;
            }

            // The representation is at least _pendingNeeded long, so it ends no sooner than the pending bytes.
            int result = DecodeRepresentation(_pending.AsSpan(0, _pendingLength), ref sink, out int needed);
            if (result != 0)
            {
                _pendingLength = 0;
                _pendingNeeded = 0;
                return result < 0 ? result : 1;
            }

            _pendingNeeded = needed;
        }
    }

    private void EnsurePending(int length)
    {
        if (_pending.Length < length)
        {
            Array.Resize(ref _pending, Math.Max(length, Math.Min(2 * _pending.Length, (2 * _maxHuffmanLength) + 32)));
        }
    }

    private readonly record struct StringLiteral(int Start, int Length, bool Huffman);
}
