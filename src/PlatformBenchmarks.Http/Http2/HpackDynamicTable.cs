using System.Diagnostics;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// An HPACK dynamic table (RFC 7541 §2.3.2, §4): entries newest first, each of size name + value + 32, evicted oldest
/// first to stay within <see cref="MaxSize"/>. The bytes of the entries lie end to end in one array, oldest first; an
/// entry is appended after the newest, and when the array's end is reached the live bytes move back to its start. The
/// array holds twice <see cref="Capacity"/>, so a move happens at most once per <see cref="Capacity"/> bytes added, and
/// an entry never needs an allocation of its own. One table serves one direction of one connection.
/// </summary>
internal sealed class HpackDynamicTable
{
    /// <summary>What RFC 7541 §4.1 adds to an entry's name and value to make its size.</summary>
    public const int EntryOverhead = 32;

    private readonly byte[] _bytes;
    private readonly Entry[] _entries;

    // The slot of the oldest entry, the number of entries, and where the next entry's bytes go.
    private int _oldest;
    private int _count;
    private int _end;

    // Where a name that lies in this table's own bytes is put aside while the bytes move.
    private byte[]? _aside;

    /// <param name="capacity">The largest <see cref="MaxSize"/> the table will be given: the SETTINGS_HEADER_TABLE_SIZE this side allows.</param>
    public HpackDynamicTable(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        Capacity = capacity;
        MaxSize = capacity;
        _bytes = new byte[2 * capacity];
        _entries = new Entry[(capacity / EntryOverhead) + 1];
    }

    public int Capacity { get; }

    /// <summary>The table's maximum size (§4.2), at most <see cref="Capacity"/>.</summary>
    public int MaxSize { get; private set; }

    /// <summary>The sum of the entries' sizes (§4.1).</summary>
    public int Size { get; private set; }

    public int Count => _count;

    /// <summary>
    /// The entry at <paramref name="index"/>, 0 being the newest (HPACK's index 62), and the static index of its name
    /// (0 for none). The spans stay valid until the next <see cref="Add"/> or <see cref="SetMaxSize"/>.
    /// </summary>
    public int Get(int index, out ReadOnlySpan<byte> name, out ReadOnlySpan<byte> value)
    {
        Debug.Assert((uint)index < (uint)_count, "The caller checks the index.");
        ref readonly Entry entry = ref _entries[Slot(index)];
        name = _bytes.AsSpan(entry.Offset, entry.NameLength);
        value = _bytes.AsSpan(entry.Offset + entry.NameLength, entry.ValueLength);
        return entry.StaticNameIndex;
    }

    /// <summary>Sets the maximum size, evicting entries to fit (§4.3); <paramref name="maxSize"/> is at most <see cref="Capacity"/>.</summary>
    public void SetMaxSize(int maxSize)
    {
        Debug.Assert((uint)maxSize <= (uint)Capacity, "The caller refuses a size above the capacity.");
        MaxSize = maxSize;
        EvictUntil(maxSize);
    }

    /// <summary>Evicts every entry, as adding one larger than the maximum size does (§4.4).</summary>
    public void EvictAll() => EvictUntil(0);

    /// <summary>
    /// Adds an entry as the newest (§4.4): older ones are evicted until it fits, and an entry larger than the maximum
    /// size empties the table and is not added. <paramref name="name"/> may be an entry of this table.
    /// </summary>
    public void Add(ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, int staticNameIndex)
    {
        int size = name.Length + value.Length + EntryOverhead;
        if (size > MaxSize)
        {
            EvictUntil(0);
            return;
        }

        if (name.Overlaps(_bytes))
        {
            // §4.4: the name is read before the eviction that may drop its entry; here, before the bytes may move.
            _aside ??= new byte[Capacity];
            name.CopyTo(_aside);
            name = _aside.AsSpan(0, name.Length);
        }

        EvictUntil(MaxSize - size);
        int length = name.Length + value.Length;
        if (_end + length > _bytes.Length)
        {
            Compact();
        }

        name.CopyTo(_bytes.AsSpan(_end));
        value.CopyTo(_bytes.AsSpan(_end + name.Length));
        _entries[Slot(-1)] = new Entry(_end, name.Length, value.Length, staticNameIndex);
        _count++;
        _end += length;
        Size += size;
    }

    /// <summary>
    /// The index (0 newest) of an entry with exactly <paramref name="name"/> and <paramref name="value"/>, else -1;
    /// <paramref name="nameIndex"/> is the newest entry with the name, or -1.
    /// </summary>
    public int Find(ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, out int nameIndex)
    {
        nameIndex = -1;
        for (int index = 0; index < _count; index++)
        {
            ref readonly Entry entry = ref _entries[Slot(index)];
            if (entry.NameLength == name.Length && name.SequenceEqual(_bytes.AsSpan(entry.Offset, entry.NameLength)))
            {
                if (entry.ValueLength == value.Length && value.SequenceEqual(_bytes.AsSpan(entry.Offset + entry.NameLength, entry.ValueLength)))
                {
                    return index;
                }

                if (nameIndex < 0)
                {
                    nameIndex = index;
                }
            }
        }

        return -1;
    }

    // Index 0 is the newest entry, whose slot is the last of the _count after _oldest; -1 is the slot after it.
    private int Slot(int index)
    {
        int slot = _oldest + _count - 1 - index;
        return slot >= _entries.Length ? slot - _entries.Length : slot < 0 ? slot + _entries.Length : slot;
    }

    private void EvictUntil(int size)
    {
        while (Size > size)
        {
            ref Entry oldest = ref _entries[_oldest];
            Size -= oldest.NameLength + oldest.ValueLength + EntryOverhead;
            _oldest = _oldest + 1 == _entries.Length ? 0 : _oldest + 1;
            _count--;
        }

        if (_count == 0)
        {
            _end = 0;
        }
    }

    private void Compact()
    {
        int start = _entries[_oldest].Offset;
        _bytes.AsSpan(start, _end - start).CopyTo(_bytes);
        for (int index = 0; index < _count; index++)
        {
            _entries[Slot(index)].Offset -= start;
        }

        _end -= start;
    }

    private struct Entry(int offset, int nameLength, int valueLength, int staticNameIndex)
    {
        public int Offset = offset;
        public readonly int NameLength = nameLength;
        public readonly int ValueLength = valueLength;
        public readonly int StaticNameIndex = staticNameIndex;
    }
}
