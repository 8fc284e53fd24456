using System.Buffers.Text;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// The HTTP/2 codec's response: a handler's response as a HEADERS frame (RFC 9113 §8.3.2: :status, then server, date,
/// content-type, content-length, allow and the response's own fields, HPACK-encoded) and DATA frames within the
/// flow-control windows (<see cref="Http2Output"/>). It never flushes; the connection flushes once per read.
/// </summary>
internal sealed class Http2Response : HttpResponse
{
    private static ReadOnlySpan<byte> ServerName => "server"u8;

    private static ReadOnlySpan<byte> ServerValue => "PB"u8;

    private static ReadOnlySpan<byte> DateName => "date"u8;

    private static ReadOnlySpan<byte> ContentTypeName => "content-type"u8;

    private static ReadOnlySpan<byte> ContentLengthName => "content-length"u8;

    private static ReadOnlySpan<byte> AllowName => "allow"u8;

    private readonly Http2Output _output;
    private readonly DateHeader _date;
    private byte[] _block = new byte[512];
    private int _streamId;
    private bool _isHead;

    public Http2Response(Http2Output output, DateHeader date)
    {
        _output = output;
        _date = date;
    }

    /// <summary>Prepares the response to the request of <paramref name="streamId"/>.</summary>
    public void Reset(int streamId, bool isHead)
    {
        _streamId = streamId;
        _isHead = isHead;
        HasWritten = false;
        IsCanceled = false;
    }

    /// <summary>The stream was reset or the connection ended: what the handler writes now is dropped.</summary>
    public bool IsCanceled { get; set; }

    // A handler that completes on its own writes from its own thread: the block is encoded and its frames written under
    // the connection's lock, so the encoder's blocks reach the peer in the order they were encoded (RFC 7541 §2.3.2).
    private protected override void WriteResponse(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> allow, ResponseFields? fields)
    {
        lock (_output.Sync)
        {
            if (!IsCanceled && !_output.IsClosed)
            {
                Encode(status, contentType, body, allow, fields);
            }

            HasWritten = true;
        }
    }

    private void Encode(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> allow, ResponseFields? fields)
    {
        HpackEncoder encoder = _output.Encoder;
        ReadOnlySpan<byte> date = _date.Value;
        IReadOnlyList<(byte[] Name, byte[] Value)> own = fields is null ? [] : fields.Http2Fields;
        int size = 16
            + HpackEncoder.MaxFieldLength(ServerName.Length, ServerValue.Length)
            + HpackEncoder.MaxFieldLength(DateName.Length, date.Length)
            + HpackEncoder.MaxFieldLength(ContentTypeName.Length, contentType.Length)
            + HpackEncoder.MaxFieldLength(ContentLengthName.Length, 10)
            + HpackEncoder.MaxFieldLength(AllowName.Length, allow.Length);
        // Indexed loops: a foreach over the interface would allocate an enumerator per response.
        for (int i = 0; i < own.Count; i++)
        {
            size += HpackEncoder.MaxFieldLength(own[i].Name.Length, own[i].Value.Length);
        }

        if (_block.Length < size)
        {
            _block = new byte[size];
        }

        Span<byte> block = _block;
        int length = encoder.BeginBlock(block);
        length += HpackEncoder.EncodeStatus((int)status, block.Slice(length));
        length += encoder.EncodeField(HpackStaticTable.Server, ServerName, ServerValue, HpackIndexing.Incremental, block.Slice(length));
        length += encoder.EncodeField(HpackStaticTable.Date, DateName, date, HpackIndexing.Incremental, block.Slice(length));
        length += encoder.EncodeField(HpackStaticTable.ContentType, ContentTypeName, contentType, HpackIndexing.Incremental, block.Slice(length));
        Span<byte> digits = stackalloc byte[10];
        Utf8Formatter.TryFormat(body.Length, digits, out int digitCount);
        length += encoder.EncodeField(HpackStaticTable.ContentLength, ContentLengthName, digits.Slice(0, digitCount), HpackIndexing.WithoutIndexing, block.Slice(length));
        if (!allow.IsEmpty)
        {
            length += encoder.EncodeField(HpackStaticTable.Allow, AllowName, allow, HpackIndexing.Incremental, block.Slice(length));
        }

        for (int i = 0; i < own.Count; i++)
        {
            (byte[] name, byte[] value) = own[i];
            length += encoder.EncodeField(HpackStaticTable.FindName(name), name, value, HpackIndexing.Incremental, block.Slice(length));
        }

        // RFC 9110 §9.3.2: HEAD gets the same fields as GET, content-length included, and no content.
        bool hasContent = !_isHead && !body.IsEmpty;
        _output.WriteHeaders(_streamId, block.Slice(0, length), endStream: !hasContent);
        if (hasContent)
        {
            _output.WriteData(_streamId, body);
        }
    }
}
