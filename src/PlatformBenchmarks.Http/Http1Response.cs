using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using PlatformBenchmarks.Http.WebSockets;

namespace PlatformBenchmarks.Http;

/// <summary>
/// The HTTP/1.1 codec's response: composes each response handed to <see cref="HttpResponse"/> into the connection's
/// output pipe from the preformatted fields in <c>Http1Response.Fields.cs</c>: the status line, Server, Date,
/// Content-Type, Content-Length computed from the body actually written, the response's own fields, and Connection
/// when persistence needs saying. Nothing is stored as a whole response or header block. The connection flushes once
/// per read; this type never flushes.
/// </summary>
internal sealed partial class Http1Response : HttpResponse
{
    // Kestrel's transport hands out 4 KiB blocks; asking for more than one block in one span costs a fallback buffer.
    // A head is well under 1 KiB, so a body up to 3 KiB goes into the same span as its head.
    private const int LargeBodyThreshold = 3 * 1024;

    private readonly PipeWriter _output;
    private readonly DateHeader _date;
    private bool _keepAlive;
    private bool _isHead;
    private bool _isHttp10;

    public Http1Response(PipeWriter output, DateHeader date)
    {
        _output = output;
        _date = date;
    }

    /// <summary>Whether the connection stays open after the response that was just written.</summary>
    public bool KeepAlive => _keepAlive;

    /// <summary>
    /// The handler the connection switches to once the request is answered; null unless a handshake was accepted. Set
    /// with <see cref="KeepAlive"/> false, so the connection looks at it only on the way that ends HTTP/1.1.
    /// </summary>
    internal IWebSocketHandler? WebSocketHandler { get; private set; }

    internal void Reset(in RequestHead head)
    {
        _keepAlive = head.KeepAlive;
        _isHead = head.Method == HttpMethod.Head;
        _isHttp10 = head.Version == HttpVersion.Http10;
        HasWritten = false;
    }

    /// <summary>Whether the response, if not written yet, keeps the connection open: the engine decides so for a body it may not read.</summary>
    internal void SetKeepAlive(bool keepAlive) => _keepAlive = keepAlive;

    /// <summary>Prepares a response to a request that could not be parsed: it ends the connection.</summary>
    internal void ResetForRejection()
    {
        _keepAlive = false;
        _isHead = false;
        _isHttp10 = false;
        HasWritten = false;
    }

    /// <summary>The interim 100 (Continue) response: a status line and the empty line, no fields (RFC 9110 §15.2.1).</summary>
    internal void WriteContinue()
    {
        ReadOnlySpan<byte> statusLine = ContinueStatusLine;
        Span<byte> span = _output.GetSpan(statusLine.Length + 2);
        statusLine.CopyTo(span);
        Crlf.CopyTo(span.Slice(statusLine.Length));
        _output.Advance(statusLine.Length + 2);
    }

    /// <summary>A plain-text error after which the connection closes.</summary>
    internal void WriteErrorAndClose(HttpStatus status, ReadOnlySpan<byte> reason)
    {
        _keepAlive = false;
        WriteResponse(status, TextPlain, reason, allow: default, fields: null);
    }

    /// <summary>RFC 6455 §4.2.2: 101 with Upgrade, Connection and Sec-WebSocket-Accept; nothing after it is HTTP.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private protected override bool TrySwitchToWebSocket(ReadOnlySpan<byte> accept, IWebSocketHandler handler)
    {
        ReadOnlySpan<byte> head = SwitchingToWebSocket;
        Span<byte> span = _output.GetSpan(head.Length + accept.Length + 4);
        head.CopyTo(span);
        accept.CopyTo(span.Slice(head.Length));
        "\r\n\r\n"u8.CopyTo(span.Slice(head.Length + accept.Length));
        _output.Advance(head.Length + accept.Length + 4);
        _keepAlive = false;
        WebSocketHandler = handler;
        HasWritten = true;
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected override void WriteResponse(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> allow, ResponseFields? fields)
    {
        // RFC 9110 §9.3.2: HEAD gets the same fields as GET, Content-Length included, and no body.
        ReadOnlySpan<byte> sent = _isHead ? default : body;
        if (sent.Length > LargeBodyThreshold)
        {
            WriteLargeResponse(status, contentType, body, allow, fields);
            return;
        }

        Compose(status, contentType, body.Length, sent, allow, fields is null ? default : fields.Http1Lines);
    }

    /// <summary>A body past one pool block (large query results): the head in one span, the body copied across blocks.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WriteLargeResponse(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> allow, ResponseFields? fields)
    {
        Compose(status, contentType, body.Length, default, allow, fields is null ? default : fields.Http1Lines);
        _output.Write(body);
    }

    /// <summary>
    /// Composes the head from its fields, followed by <paramref name="sent"/>, into one span with one Advance.
    /// <paramref name="fields"/> (whole lines, most responses have none) go after Content-Length.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Compose(HttpStatus status, ReadOnlySpan<byte> contentType, int contentLength, ReadOnlySpan<byte> sent, ReadOnlySpan<byte> allow, ReadOnlySpan<byte> fields)
    {
        ReadOnlySpan<byte> statusLine = StatusLine(status);
        ReadOnlySpan<byte> date = _date.Value;
        int connectionLength = _keepAlive ? (_isHttp10 ? ConnectionKeepAlive.Length : 0) : ConnectionClose.Length;
        int lengthDigits = CountDigits((uint)contentLength);

        int total = statusLine.Length
            + ServerField.Length
            + DateName.Length + date.Length + 2
            + ContentTypeName.Length + contentType.Length + 2
            + ContentLengthName.Length + lengthDigits + 2
            + fields.Length
            + (allow.IsEmpty ? 0 : AllowName.Length + allow.Length + 2)
            + connectionLength
            + 2
            + sent.Length;

        Span<byte> span = _output.GetSpan(total);
        var writer = new SpanWriter(span);
        writer.Write(statusLine);
        writer.Write(ServerField);
        writer.Write(DateName);
        writer.Write(date);
        writer.Write(Crlf);
        writer.Write(ContentTypeName);
        writer.Write(contentType);
        writer.Write(Crlf);
        writer.Write(ContentLengthName);
        writer.WriteDigits((uint)contentLength, lengthDigits);
        writer.Write(Crlf);
        writer.Write(fields);
        if (!allow.IsEmpty)
        {
            writer.Write(AllowName);
            writer.Write(allow);
            writer.Write(Crlf);
        }

        // Each field from a constant, so the JIT copies it without a call; a persistent HTTP/1.1 connection needs none.
        if (!_keepAlive)
        {
            writer.Write(ConnectionClose);
        }
        else if (_isHttp10)
        {
            writer.Write(ConnectionKeepAlive);
        }

        writer.Write(Crlf);
        writer.Write(sent);

        _output.Advance(writer.Position);
        HasWritten = true;
    }

    // Internal, with SpanWriter, so the benchmarks can measure Content-Length formatting on its own.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int CountDigits(uint value)
    {
        int digits = 1;
        while (value >= 10)
        {
            value /= 10;
            digits++;
        }

        return digits;
    }

    /// <summary>Sequential writes into a span sized exactly beforehand.</summary>
    internal ref struct SpanWriter
    {
        private readonly Span<byte> _span;
        private int _position;

        public SpanWriter(Span<byte> span) => _span = span;

        public readonly int Position => _position;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Write(ReadOnlySpan<byte> value)
        {
            value.CopyTo(_span.Slice(_position));
            _position += value.Length;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void WriteDigits(uint value, int digits)
        {
            Span<byte> target = _span.Slice(_position, digits);
            for (int i = digits - 1; i >= 0; i--)
            {
                uint quotient = value / 10;
                target[i] = (byte)('0' + (value - (quotient * 10)));
                value = quotient;
            }

            _position += digits;
        }
    }
}
