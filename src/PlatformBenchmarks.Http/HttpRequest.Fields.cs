namespace PlatformBenchmarks.Http;

public readonly ref partial struct HttpRequest
{
    /// <summary>
    /// The header fields in the order received, each name as sent and its value without surrounding whitespace. The
    /// parser has validated every line already (RFC 9112 §5), so this only finds their boundaries.
    /// </summary>
    public FieldEnumerator Fields => new(_head);

    /// <summary>Walks the field lines between the request line and the empty line that ends the head.</summary>
    public ref struct FieldEnumerator
    {
        private ReadOnlySpan<byte> _rest;

        internal FieldEnumerator(ReadOnlySpan<byte> head)
        {
            int requestLineEnd = head.IndexOf("\r\n"u8);
            _rest = requestLineEnd < 0 ? default : head.Slice(requestLineEnd + 2);
            Current = default;
        }

        public Field Current { get; private set; }

        public readonly FieldEnumerator GetEnumerator() => this;

        public bool MoveNext()
        {
            int lineEnd = _rest.IndexOf("\r\n"u8);
            if (lineEnd <= 0)
            {
                // The empty line (or the end of what was kept): no more fields.
                return false;
            }

            ReadOnlySpan<byte> line = _rest.Slice(0, lineEnd);
            _rest = _rest.Slice(lineEnd + 2);
            int colon = line.IndexOf((byte)':');
            Current = new Field(line.Slice(0, colon), line.Slice(colon + 1).Trim(" \t"u8));
            return true;
        }
    }

    /// <summary>One header field: its name as received and its value, both borrowed from the receive buffer.</summary>
    public readonly ref struct Field(ReadOnlySpan<byte> name, ReadOnlySpan<byte> value)
    {
        public ReadOnlySpan<byte> Name { get; } = name;

        public ReadOnlySpan<byte> Value { get; } = value;
    }
}
