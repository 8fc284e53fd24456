using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace PlatformBenchmarks.Http;

/// <summary>
/// Writes responses for one connection into its output pipe. Every response is composed from the preformatted
/// fields in <c>HttpResponse.Fields.cs</c>: the status line, Server, Date, Content-Type, Content-Length computed
/// from the body actually written, and Connection when persistence needs saying. Nothing is stored as a whole
/// response or header block. The connection flushes once per read; this type never flushes.
/// </summary>
internal sealed partial class HttpResponse
{
    // Kestrel's transport hands out 4 KiB blocks; asking for more than one block in one span costs a fallback buffer.
    // A head is well under 1 KiB, so a body up to 3 KiB goes into the same span as its head.
    private const int LargeBodyThreshold = 3 * 1024;

    private readonly PipeWriter _output;
    private readonly DateHeader _date;
    private ResponseBodyBuffer? _body;
    private bool _keepAlive;
    private bool _isHead;
    private bool _isHttp10;
    private bool _written;

    public HttpResponse(PipeWriter output, DateHeader date)
    {
        _output = output;
        _date = date;
    }

    /// <summary>Whether the connection stays open after the response that was just written.</summary>
    public bool KeepAlive => _keepAlive;

    internal bool HasWritten => _written;

    internal void Reset(in RequestHead head)
    {
        _keepAlive = head.KeepAlive;
        _isHead = head.Method == HttpMethod.Head;
        _isHttp10 = head.Version == HttpVersion.Http10;
        _written = false;
    }

    /// <summary>Whether the response, if not written yet, keeps the connection open: the engine decides so for a body it may not read.</summary>
    internal void SetKeepAlive(bool keepAlive) => _keepAlive = keepAlive;

    /// <summary>Prepares a response to a request that could not be parsed: it ends the connection.</summary>
    internal void ResetForRejection()
    {
        _keepAlive = false;
        _isHead = false;
        _isHttp10 = false;
        _written = false;
    }

    // The body is buffered and copied behind its head rather than written straight into the pipe: even a lower bound
    // of the straight path measured level with the copy, and the real one would also fill in Content-Length after the
    // body, so the copy stays and keeps the head exact (docs/decisions/0008-measured-code-choices.md).
    /// <summary>A reusable buffer for a body whose length is known only once it is written; emptied here.</summary>
    public IBufferWriter<byte> StartBody() => (_body ??= ResponseBodyBuffer.Rent()).Start();

    /// <summary>A reusable JSON writer over the body buffer (see <see cref="StartBody"/>).</summary>
    public Utf8JsonWriter StartJson() => (_body ??= ResponseBodyBuffer.Rent()).StartJson();

    /// <summary>Gives the body buffer back when the connection ends; a later body would take another.</summary>
    internal void ReleaseBodyBuffer()
    {
        if (_body is not null)
        {
            ResponseBodyBuffer.Return(_body);
            _body = null;
        }
    }

    /// <summary>Sends what was written through <see cref="StartBody"/> or <see cref="StartJson"/> as the body.</summary>
    public void WriteBuffered(HttpStatus status, ReadOnlySpan<byte> contentType) => Write(status, contentType, BufferedBody);

    /// <summary>Sends a complete response with <paramref name="body"/>.</summary>
    public void Write(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body) =>
        WriteCore(status, contentType, body, allow: default);

    /// <summary>
    /// Sends a complete response with <paramref name="body"/> and <paramref name="fields"/>: whole field lines, each
    /// ending in CRLF (<c>Content-Encoding: br\r\nVary: Accept-Encoding\r\n</c>), preformatted by the caller.
    /// </summary>
    public void Write(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> fields) =>
        WriteCore(status, contentType, body, allow: default, fields);

    /// <summary>What was written through <see cref="StartBody"/> or <see cref="StartJson"/> so far, to send through <see cref="Write(HttpStatus, ReadOnlySpan{byte}, ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>.</summary>
    public ReadOnlySpan<byte> BufferedBody => _body is null ? default : _body.Written;

    /// <summary>405 with the methods the resource allows (RFC 9110 §15.5.6 requires Allow).</summary>
    public void WriteMethodNotAllowed(ReadOnlySpan<byte> allow) =>
        WriteCore(HttpStatus.MethodNotAllowed, TextPlain, "Method not allowed.\n"u8, allow);

    /// <summary>200 to OPTIONS, with the methods allowed and no content (RFC 9110 §9.3.7).</summary>
    public void WriteOptions(ReadOnlySpan<byte> allow) => WriteCore(HttpStatus.Ok, TextPlain, default, allow);

    /// <summary>A status with a short plain-text reason.</summary>
    public void WriteText(HttpStatus status, ReadOnlySpan<byte> reason) => WriteCore(status, TextPlain, reason, allow: default);

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
    public void WriteErrorAndClose(HttpStatus status, ReadOnlySpan<byte> reason)
    {
        _keepAlive = false;
        WriteCore(status, TextPlain, reason, allow: default);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WriteCore(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> allow, ReadOnlySpan<byte> fields = default)
    {
        // RFC 9110 §9.3.2: HEAD gets the same fields as GET, Content-Length included, and no body.
        ReadOnlySpan<byte> sent = _isHead ? default : body;
        if (sent.Length > LargeBodyThreshold)
        {
            WriteLargeResponse(status, contentType, body, allow, fields);
            return;
        }

        Compose(status, contentType, body.Length, sent, allow, fields);
    }

    /// <summary>A body past one pool block (large query results): the head in one span, the body copied across blocks.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WriteLargeResponse(HttpStatus status, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> allow, ReadOnlySpan<byte> fields)
    {
        Compose(status, contentType, body.Length, default, allow, fields);
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
        ReadOnlySpan<byte> connection = _keepAlive ? (_isHttp10 ? ConnectionKeepAlive : default) : ConnectionClose;
        int lengthDigits = CountDigits((uint)contentLength);

        int total = statusLine.Length
            + ServerField.Length
            + DateName.Length + date.Length + 2
            + ContentTypeName.Length + contentType.Length + 2
            + ContentLengthName.Length + lengthDigits + 2
            + fields.Length
            + (allow.IsEmpty ? 0 : AllowName.Length + allow.Length + 2)
            + connection.Length
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

        writer.Write(connection);
        writer.Write(Crlf);
        writer.Write(sent);

        _output.Advance(writer.Position);
        _written = true;
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
