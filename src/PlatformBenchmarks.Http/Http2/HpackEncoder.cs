namespace PlatformBenchmarks.Http.Http2;

/// <summary>How <see cref="HpackEncoder"/> represents a field (RFC 7541 §6.2).</summary>
internal enum HpackIndexing : byte
{
    /// <summary>Indexed when the dynamic table has it; else a literal added to the table (§6.2.1), for fields that repeat.</summary>
    Incremental,

    /// <summary>A literal not added (§6.2.2), for values that change from response to response.</summary>
    WithoutIndexing,

    /// <summary>A literal that no intermediary may index either (§6.2.3), for secrets.</summary>
    NeverIndexed,
}

/// <summary>
/// An HPACK encoder (RFC 7541) for the header blocks one connection sends. Status codes the static table holds take one
/// byte; fields that repeat from response to response (server, content-type, date) are kept in a dynamic table that
/// mirrors the peer's decoder, so a repeat takes one byte too; a string is Huffman coded when that is shorter. It never
/// allocates after construction. One encoder serves one connection's blocks in the order they are sent.
/// </summary>
internal sealed class HpackEncoder
{
    // An integer with its prefix takes at most this many bytes here: values stay below 2^28.
    private const int MaxIntegerLength = 5;

    private readonly HpackDynamicTable _table;

    // Size updates owed at the start of the next block (§4.2): the smallest size since the last block, and the last.
    private int _smallestSizeUpdate = -1;
    private int _lastSizeUpdate = -1;

    /// <param name="capacity">The most table this side keeps for the peer, whatever larger size the peer allows.</param>
    public HpackEncoder(int capacity = 4096)
    {
        // RFC 7541 §4.2 and RFC 9113 §6.5.2: the peer's decoder starts with 4096, so the table does until the peer's SETTINGS.
        _table = new HpackDynamicTable(capacity);
        if (capacity < 4096)
        {
            _table.SetMaxSize(capacity);
            _smallestSizeUpdate = _lastSizeUpdate = capacity;
        }
    }

    public HpackDynamicTable DynamicTable => _table;

    /// <summary>The bytes a field may take at most, with the size updates that may start its block.</summary>
    public static int MaxFieldLength(int nameLength, int valueLength) => (4 * MaxIntegerLength) + nameLength + valueLength + (2 * MaxIntegerLength);

    /// <summary>
    /// The peer's SETTINGS_HEADER_TABLE_SIZE: the table shrinks or grows (within the capacity) to it, and the next block
    /// tells the peer so.
    /// </summary>
    public void SetPeerTableSize(uint size)
    {
        int maxSize = (int)Math.Min(size, (uint)_table.Capacity);
        if (maxSize == _table.MaxSize && _lastSizeUpdate < 0)
        {
            return;
        }

        _smallestSizeUpdate = _smallestSizeUpdate < 0 ? maxSize : Math.Min(_smallestSizeUpdate, maxSize);
        _lastSizeUpdate = maxSize;
        _table.SetMaxSize(maxSize);
    }

    /// <summary>Starts a header block: writes the size updates owed, if any (§4.2). Returns the bytes written.</summary>
    public int BeginBlock(Span<byte> destination)
    {
        if (_lastSizeUpdate < 0)
        {
            return 0;
        }

        int written = 0;
        if (_smallestSizeUpdate < _lastSizeUpdate)
        {
            written = WriteInteger(destination, 0x20, 5, _smallestSizeUpdate);
        }

        written += WriteInteger(destination.Slice(written), 0x20, 5, _lastSizeUpdate);
        _smallestSizeUpdate = _lastSizeUpdate = -1;
        return written;
    }

    /// <summary>Writes <c>:status</c>: one byte for the codes of the static table, else a literal. Returns the bytes written.</summary>
    public static int EncodeStatus(int status, Span<byte> destination)
    {
        int index = HpackStaticTable.StatusIndex(status);
        if (index != 0)
        {
            destination[0] = (byte)(0x80 | index);
            return 1;
        }

        // §6.2.2 with the name of entry 8; the three digits raw, which Huffman would not shorten enough to matter.
        destination[0] = HpackStaticTable.Status200;
        destination[1] = 3;
        destination[2] = (byte)('0' + (status / 100));
        destination[3] = (byte)('0' + (status / 10 % 10));
        destination[4] = (byte)('0' + (status % 10));
        return 5;
    }

    /// <summary>
    /// Writes one field, its name lowercase; <paramref name="staticNameIndex"/> is the static table's index of the
    /// name (0 when it has none or the caller does not know it). <paramref name="destination"/> holds at least
    /// <see cref="MaxFieldLength"/> bytes. Returns the bytes written.
    /// </summary>
    public int EncodeField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, HpackIndexing indexing, Span<byte> destination)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(destination.Length, MaxFieldLength(name.Length, value.Length));
        int nameIndex = staticNameIndex;
        if (indexing == HpackIndexing.Incremental)
        {
            int entry = HpackStaticTable.FindEntry(staticNameIndex, value);
            if (entry != 0)
            {
                destination[0] = (byte)(0x80 | entry);
                return 1;
            }

            int found = _table.Find(name, value, out int dynamicNameIndex);
            if (found >= 0)
            {
                return WriteInteger(destination, 0x80, 7, HpackStaticTable.Count + 1 + found);
            }

            if (nameIndex == 0 && dynamicNameIndex >= 0)
            {
                nameIndex = HpackStaticTable.Count + 1 + dynamicNameIndex;
            }
        }

        int written = indexing switch
        {
            HpackIndexing.Incremental => WriteInteger(destination, 0x40, 6, nameIndex),
            HpackIndexing.NeverIndexed => WriteInteger(destination, 0x10, 4, nameIndex),
            _ => WriteInteger(destination, 0x00, 4, nameIndex),
        };

        if (nameIndex == 0)
        {
            written += WriteString(name, destination.Slice(written));
        }

        written += WriteString(value, destination.Slice(written));
        if (indexing == HpackIndexing.Incremental)
        {
            _table.Add(name, value, staticNameIndex);
        }

        return written;
    }

    /// <summary>A string literal (§5.2), Huffman coded when that is shorter.</summary>
    public static int WriteString(ReadOnlySpan<byte> text, Span<byte> destination)
    {
        int huffmanLength = HpackHuffman.EncodedLength(text);
        if (huffmanLength < text.Length)
        {
            int written = WriteInteger(destination, 0x80, 7, huffmanLength);
            return written + HpackHuffman.Encode(text, destination.Slice(written));
        }

        int prefix = WriteInteger(destination, 0x00, 7, text.Length);
        text.CopyTo(destination.Slice(prefix));
        return prefix + text.Length;
    }

    /// <summary>An integer with an <paramref name="prefixBits"/>-bit prefix after <paramref name="flags"/> (§5.1).</summary>
    public static int WriteInteger(Span<byte> destination, byte flags, int prefixBits, int value)
    {
        int mask = (1 << prefixBits) - 1;
        if (value < mask)
        {
            destination[0] = (byte)(flags | value);
            return 1;
        }

        destination[0] = (byte)(flags | mask);
        value -= mask;
        int written = 1;
        while (value >= 0x80)
        {
            destination[written++] = (byte)(0x80 | (value & 0x7F));
            value >>= 7;
        }

        destination[written++] = (byte)value;
        return written;
    }
}
