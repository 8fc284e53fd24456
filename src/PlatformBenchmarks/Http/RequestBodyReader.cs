using System.Buffers;

namespace PlatformBenchmarks.Http;

/// <summary>
/// Reads a request body to its end and discards it, so the next pipelined request starts at the right byte
/// (RFC 9112 §6.3). It is resumable: feed it each new run of bytes as it arrives. The chunked decoder checks the
/// whole grammar of RFC 9112 §7.1, extensions and trailers included, and the body and trailer limits.
/// </summary>
internal struct RequestBodyReader
{
    private const int MaxChunkLineSize = 4096;

    private enum State : byte
    {
        Size,
        Extension,
        SizeLf,
        Data,
        DataCr,
        DataLf,
        TrailerStart,
        Trailer,
        TrailerLf,
        FinalLf,
        Done,
    }

    private BodyKind _kind;
    private State _state;
    private long _remaining;
    private long _total;
    private long _chunkSize;
    private int _digits;
    private int _lineBytes;
    private int _trailerBytes;
    private long _maxBodySize;
    private int _maxTrailerSize;

    public RequestBodyReader(in RequestHead head, HttpLimits limits)
    {
        _kind = head.BodyKind;
        _remaining = head.ContentLength;
        _maxBodySize = limits.MaxRequestBodySize;
        _maxTrailerSize = limits.MaxRequestHeadersSize;
        _state = State.Size;
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
            int used = ReadChunked(span, out rejection);
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

    private int ReadChunked(ReadOnlySpan<byte> span, out RequestRejection rejection)
    {
        rejection = RequestRejection.None;
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
                    }
                    else
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    i++;
                    break;

                case State.Extension:
                    // chunk-ext is validated only for bytes that cannot appear in a line, and for its length.
                    if (b == (byte)'\r')
                    {
                        _state = State.SizeLf;
                    }
                    else if ((b < 0x20 && b != (byte)'\t') || b == 0x7F || ++_lineBytes > MaxChunkLineSize)
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
                    int take = (int)Math.Min(_remaining, span.Length - i);
                    i += take;
                    _remaining -= take;
                    if (_remaining == 0)
                    {
                        _state = State.DataCr;
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

                    _state = State.Trailer;
                    goto case State.Trailer;

                case State.Trailer:
                    if (b == (byte)'\r')
                    {
                        _state = State.TrailerLf;
                    }
                    else if ((b < 0x20 && b != (byte)'\t') || b == 0x7F)
                    {
                        rejection = RequestRejection.InvalidChunkedBody;
                        return i;
                    }

                    if (++_trailerBytes > _maxTrailerSize)
                    {
                        rejection = RequestRejection.TrailersTooLarge;
                        return i;
                    }

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
