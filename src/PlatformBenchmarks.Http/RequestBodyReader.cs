using System.Buffers;

namespace PlatformBenchmarks.Http;

/// <summary>
/// The framing of a request body (RFC 9112 §6.3): it finds the body's last byte, so the next pipelined request starts
/// at the right one, and, for <see cref="ReadData"/>, the body's own bytes among the chunk framing. It is resumable:
/// feed it each new run of bytes as it arrives. The chunked decoder checks the whole grammar of RFC 9112 §7.1,
/// extensions and trailers included, and the body and trailer limits.
/// </summary>
internal struct RequestBodyReader
{
    // RFC 9110 §5.6.2: tchar.
    private static readonly SearchValues<byte> s_tokenChars =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"u8);

    private const int MaxChunkLineSize = 4096;

    // The data limit that means "discard": the data is framing to step over, not bytes to hand out.
    private const int Discard = int.MaxValue;

    // Where a chunk extension has got to (RFC 9112 §7.1.1):
    // chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ), chunk-ext-val = token / quoted-string.
    private enum Extension : byte
    {
        BeforeSemicolon,
        BeforeName,
        Name,
        AfterName,
        BeforeValue,
        Token,
        AfterValue,
        Quoted,
        QuotedEscape,
        AfterQuoted,
    }

    private enum State : byte
    {
        Size,
        Extension,
        SizeLf,
        Data,
        DataCr,
        DataLf,
        TrailerStart,
        TrailerName,
        TrailerValue,
        TrailerLf,
        FinalLf,
        Done,
    }

    private BodyKind _kind;
    private State _state;
    private Extension _extension;
    private long _remaining;
    private long _total;
    private long _chunkSize;
    private int _digits;
    private int _lineBytes;
    private int _trailerBytes;
    private int _trailerCount;
    private long _maxBodySize;
    private int _maxTrailerSize;
    private int _maxTrailerCount;

    /// <param name="maxBodySize">The largest body the request's resource takes; <see cref="HttpLimits.MaxRequestBodySize"/> when not given.</param>
    public RequestBodyReader(in RequestHead head, HttpLimits limits, long? maxBodySize = null)
    {
        _kind = head.BodyKind;
        _remaining = head.ContentLength;
        _maxBodySize = maxBodySize ?? limits.MaxRequestBodySize;
        _maxTrailerSize = limits.MaxRequestHeadersSize;
        _maxTrailerCount = limits.MaxRequestHeaderCount;
        _state = State.Size;
    }

    /// <summary>
    /// Consumes framing from the start of <paramref name="buffer"/> up to the next run of body data, and at most
    /// <paramref name="maxData"/> bytes of that run. The data is the last <paramref name="dataLength"/> of the
    /// <paramref name="consumed"/> bytes; 0 with <see cref="ParseStatus.Incomplete"/> means more bytes are needed.
    /// </summary>
    public ParseStatus ReadData(in ReadOnlySequence<byte> buffer, int maxData, out long consumed, out int dataLength, out RequestRejection rejection)
    {
        rejection = RequestRejection.None;
        if (_kind != BodyKind.Chunked)
        {
            dataLength = (int)Math.Min(Math.Min(_remaining, buffer.Length), maxData);
            consumed = dataLength;
            _remaining -= dataLength;
            return _remaining == 0 ? ParseStatus.Complete : ParseStatus.Incomplete;
        }

        consumed = 0;
        dataLength = 0;
        foreach (ReadOnlyMemory<byte> segment in buffer)
        {
            consumed += ReadChunked(segment.Span, maxData, out dataLength, out rejection);
            if (rejection != RequestRejection.None)
            {
                return ParseStatus.Rejected;
            }

            if (_state == State.Done)
            {
                return ParseStatus.Complete;
            }

            if (dataLength > 0)
            {
                break;
            }
        }

        return ParseStatus.Incomplete;
    }

    /// <summary>Consumes body bytes from the start of <paramref name="buffer"/>.</summary>
    /// <param name="consumed">How many bytes of <paramref name="buffer"/> belong to the body.</param>
    public ParseStatus Read(in ReadOnlySequence<byte> buffer, out long consumed, out RequestRejection rejection)
    {
        rejection = RequestRejection.None;
        if (_kind == BodyKind.ContentLength)
        {
            consumed = Math.Min(_remaining, buffer.Length);
            _remaining -= consumed;
            return _remaining == 0 ? ParseStatus.Complete : ParseStatus.Incomplete;
        }

        if (_kind == BodyKind.None)
        {
            consumed = 0;
            return ParseStatus.Complete;
        }

        consumed = 0;
        foreach (ReadOnlyMemory<byte> segment in buffer)
        {
            ReadOnlySpan<byte> span = segment.Span;
            int used = ReadChunked(span, Discard, out _, out rejection);
            consumed += used;
            if (rejection != RequestRejection.None)
            {
                return ParseStatus.Rejected;
            }

            if (_state == State.Done)
            {
                return ParseStatus.Complete;
            }
        }

        return ParseStatus.Incomplete;
    }

    /// <summary>
    /// Runs the chunked grammar over <paramref name="span"/>. With <see cref="Discard"/> it goes through data as
    /// through framing; otherwise it stops after the first run of data, at most <paramref name="maxData"/> bytes.
    /// </summary>
    private int ReadChunked(ReadOnlySpan<byte> span, int maxData, out int data, out RequestRejection rejection)
    {
        rejection = RequestRejection.None;
        data = 0;
        int i = 0;
        while (i < span.Length)
        {
            byte b = span[i];
            switch (_state)
            {
                case State.Size:
                    int digit = HexValue(b);
                    if (digit >= 0)
                    {
                        // Leading zeros are legal; a size with more than 15 significant hex digits cannot be in limits.
                        if (_chunkSize != 0 || digit != 0)
                        {
                            _digits++;
                        }

                        _chunkSize = (_chunkSize << 4) | (uint)digit;
                        if (_digits > 15)
                        {
                            // RFC 9112 §7.1: a size that overflows the arithmetic is refused as malformed (400); one
                            // that fits but is over the limit gets 413 once the size has ended, below.
                            rejection = RequestRejection.InvalidChunkedBody;
                            return i;
                        }

                        if (++_lineBytes > MaxChunkLineSize)
                        {
                            rejection = RequestRejection.InvalidChunkedBody;
                            return i;
                        }

                        i++;
                        continue;
                    }

                    if (_lineBytes == 0)
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    if (_chunkSize > _maxBodySize - _total)
                    {
                        rejection = RequestRejection.BodyTooLarge;
                        return i;
                    }

                    if (b == (byte)'\r')
                    {
                        _state = State.SizeLf;
                    }
                    else if (b == (byte)';' || b == (byte)' ' || b == (byte)'\t')
                    {
                        _state = State.Extension;
                        _extension = b == (byte)';' ? Extension.BeforeName : Extension.BeforeSemicolon;
                    }
                    else
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    i++;
                    break;

                case State.Extension:
                    // Extensions are validated and ignored; one that breaks the grammar is refused, as a recipient
                    // that skipped it leniently could frame the body differently from a proxy in front of it.
                    if (++_lineBytes > MaxChunkLineSize || !ReadExtension(b))
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    i++;
                    break;

                case State.SizeLf:
                    if (b != (byte)'\n')
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    i++;
                    _total += _chunkSize;
                    _remaining = _chunkSize;
                    _state = _chunkSize == 0 ? State.TrailerStart : State.Data;
                    _chunkSize = 0;
                    _digits = 0;
                    _lineBytes = 0;
                    break;

                case State.Data:
                    int take = (int)Math.Min(Math.Min(_remaining, span.Length - i), maxData);
                    i += take;
                    _remaining -= take;
                    if (_remaining == 0)
                    {
                        _state = State.DataCr;
                    }

                    if (maxData != Discard)
                    {
                        data = take;
                        return i;
                    }

                    break;

                case State.DataCr:
                case State.DataLf:
                    if (b != (_state == State.DataCr ? (byte)'\r' : (byte)'\n'))
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    _state = _state == State.DataCr ? State.DataLf : State.Size;
                    i++;
                    break;

                case State.TrailerStart:
                    if (b == (byte)'\r')
                    {
                        _state = State.FinalLf;
                        i++;
                        break;
                    }

                    if (++_trailerCount > _maxTrailerCount)
                    {
                        rejection = RequestRejection.TrailersTooLarge;
                        return i;
                    }

                    // A field name starts with a token character: a space here would be obsolete line folding.
                    if (!IsTokenChar(b))
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    _state = State.TrailerName;
                    goto case State.TrailerName;

                case State.TrailerName:
                case State.TrailerValue:
                    // RFC 9112 §7.1.2: trailers are field lines, held to the rules of the head's (RFC 9112 §5: a token,
                    // a colon, then field text), counted against the head's limits, and dropped.
                    bool valid = _state == State.TrailerName
                        ? IsTokenChar(b) || b == (byte)':'
                        : b == (byte)'\r' || IsFieldText(b);
                    if (!valid)
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    if (++_trailerBytes > _maxTrailerSize)
                    {
                        rejection = RequestRejection.TrailersTooLarge;
                        return i;
                    }

                    _state = b == (byte)':' && _state == State.TrailerName ? State.TrailerValue
                        : b == (byte)'\r' ? State.TrailerLf
                        : _state;
                    i++;
                    break;

                case State.TrailerLf:
                case State.FinalLf:
                    if (b != (byte)'\n')
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    _state = _state == State.TrailerLf ? State.TrailerStart : State.Done;
                    i++;
                    if (_state == State.Done)
                    {
                        return i;
                    }

                    break;

                default:
                    return i;
            }
        }

        return i;
    }

    /// <summary>Takes one byte of a chunk extension; false if the grammar does not allow it there.</summary>
    private bool ReadExtension(byte b)
    {
        bool space = b is (byte)' ' or (byte)'\t';
        switch (_extension)
        {
            case Extension.BeforeSemicolon:
            case Extension.AfterName when b != (byte)'=':
            case Extension.AfterValue:
                // BWS may only lead to the next ';' (or, after a name, to its '=').
                if (b == (byte)';')
                {
                    _extension = Extension.BeforeName;
                    return true;
                }

                return space;
            case Extension.AfterName:
                _extension = Extension.BeforeValue;
                return true;
            case Extension.BeforeName:
                if (IsTokenChar(b))
                {
                    _extension = Extension.Name;
                    return true;
                }

                return space;
            case Extension.Name:
            case Extension.Token:
                if (IsTokenChar(b))
                {
                    return true;
                }

                if (b == (byte)'=' && _extension == Extension.Name)
                {
                    _extension = Extension.BeforeValue;
                    return true;
                }

                return EndOfElement(b, space, _extension == Extension.Name ? Extension.AfterName : Extension.AfterValue);
            case Extension.BeforeValue:
                if (IsTokenChar(b) || b == (byte)'"')
                {
                    _extension = b == (byte)'"' ? Extension.Quoted : Extension.Token;
                    return true;
                }

                return space;
            case Extension.Quoted:
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text (RFC 9110 §5.6.4).
                if (b == (byte)'"' || b == (byte)'\\')
                {
                    _extension = b == (byte)'"' ? Extension.AfterQuoted : Extension.QuotedEscape;
                    return true;
                }

                return space || (b >= 0x21 && b != 0x7F);
            case Extension.QuotedEscape:
                _extension = Extension.Quoted;
                return space || (b >= 0x21 && b != 0x7F);
            case Extension.AfterQuoted:
                return EndOfElement(b, space, Extension.AfterValue);
            default:
                return false;
        }
    }

    /// <summary>After a name or a value: the line's CR, the next ';', or BWS that must lead to one.</summary>
    private bool EndOfElement(byte b, bool space, Extension afterSpace)
    {
        if (b == (byte)'\r')
        {
            _state = State.SizeLf;
            return true;
        }

        if (b == (byte)';')
        {
            _extension = Extension.BeforeName;
            return true;
        }

        if (space)
        {
            _extension = afterSpace;
            return true;
        }

        return false;
    }

    private static bool IsTokenChar(byte b) => s_tokenChars.Contains(b);

    /// <summary>HTAB, SP, visible ASCII and obs-text: what a field value may hold (RFC 9110 §5.5).</summary>
    private static bool IsFieldText(byte b) => b == (byte)'\t' || (b >= 0x20 && b != 0x7F);

    private static int HexValue(byte b)
    {
        if ((uint)(b - '0') <= 9)
        {
            return b - '0';
        }

        int lower = b | 0x20;
        return (uint)(lower - 'a') <= 5 ? lower - 'a' + 10 : -1;
    }
}
