using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Http;

/// <summary>The outcome of one attempt to parse a request head.</summary>
internal enum ParseStatus : byte
{
    /// <summary>A whole head was parsed.</summary>
    Complete,

    /// <summary>The buffer ends inside a head: wait for more bytes.</summary>
    Incomplete,

    /// <summary>The head is invalid or over a limit: answer with the rejection's status and close.</summary>
    Rejected,
}

/// <summary>
/// An HTTP/1.1 request-head parser (RFC 9112 §2-§5). It parses a head only once all of it has arrived, so a request
/// split at any byte, or spread over several buffer segments, parses exactly like the same request in one piece: a
/// head inside the first segment is parsed in place; any other head is first copied into a per-parser buffer.
/// One parser serves one connection; it is not thread-safe.
/// </summary>
internal sealed partial class HttpParser
{
    private const uint GetSpace = 'G' | ('E' << 8) | ('T' << 16) | (' ' << 24);
    private const ushort CrLf = '\r' | ('\n' << 8);

    private readonly HttpLimits _limits;
    private byte[]? _scratch;

    public HttpParser(HttpLimits limits) => _limits = limits;

    public HttpLimits Limits => _limits;

    /// <summary>
    /// Parses the head at the start of <paramref name="buffer"/>. On <see cref="ParseStatus.Complete"/>,
    /// <paramref name="headBytes"/> holds the head (request line, fields and the empty line) and
    /// <paramref name="consumed"/> is the number of buffer bytes it took, leading empty lines included.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ParseStatus TryParseHead(
        in ReadOnlySequence<byte> buffer,
        out RequestHead head,
        out ReadOnlySpan<byte> headBytes,
        out int consumed,
        out RequestRejection rejection)
    {
        ReadOnlySpan<byte> first = buffer.FirstSpan;
        int length = TryParseWellFormedHead(first, out head);
        if (length > 0)
        {
            // The common case: a valid head inside the first segment, parsed in place in one pass.
            headBytes = first.Slice(0, length);
            consumed = length;
            rejection = RequestRejection.None;
            return ParseStatus.Complete;
        }

        return TryParseHeadSlow(buffer, out head, out headBytes, out consumed, out rejection);
    }

    /// <summary>
    /// Parses a head that is wholly inside <paramref name="data"/> and valid, finding its end as it goes, and returns
    /// its length. Returns 0 for anything else (incomplete, invalid, over a limit, leading empty lines), leaving the
    /// decision to <see cref="TryParseHeadSlow"/>, so every outcome other than a complete head, and its status and
    /// rejection, is decided by one code path. When it succeeds, <see cref="ParseHead"/> would have found the same
    /// end (with every line ended by CRLF, the first CRLF CRLF is the end of the first empty line) and accepted the
    /// same bytes with the same <paramref name="head"/>: the checks are the same, only done in fewer passes.
    /// </summary>
    // Kept out of line: inlined into TryParseHead (and from there into each caller) it made callers' code 2-4 KB and
    // its speed depend on the caller, 70 to 110 ns for the same TFB request in measurements; out of line it is ~70.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private int TryParseWellFormedHead(ReadOnlySpan<byte> data, out RequestHead head)
    {
        head = default;
        if (data.Length > _limits.MaxHeadSize)
        {
            // A head ending beyond MaxHeadSize is rejected; never scan further than that.
            data = data.Slice(0, _limits.MaxHeadSize);
        }

        int fieldsStart = ParseWellFormedRequestLine(data, ref head);
        if (fieldsStart == 0)
        {
            return 0;
        }

        int position = fieldsStart;
        int count = 0;
        var facts = default(FieldFacts);
        while (true)
        {
            ReadOnlySpan<byte> rest = data.Slice(position);
            if (rest.Length >= 2 && rest[0] == (byte)'\r')
            {
                if (rest[1] != (byte)'\n')
                {
                    return 0;
                }

                // The empty line that ends the head.
                position += 2;
                break;
            }

            // A common name is recognised by word compares. Any other name is all token characters, and ':' is not
            // one: the first non-token byte must be the colon, so one search both finds it and validates the name.
            int colon = rest.Length >= 16 ? CommonFieldNameLength(rest) : 0;
            if (colon == 0)
            {
                colon = rest.IndexOfAnyExcept(s_tokenChars);
                if (colon <= 0 || rest[colon] != (byte)':')
                {
                    // Obsolete line folding, a line without a name, or the head is not all here yet.
                    return 0;
                }
            }

            if (++count > _limits.MaxRequestHeaderCount)
            {
                return 0;
            }

            ReadOnlySpan<byte> afterColon = rest.Slice(colon + 1);
            ReadOnlySpan<byte> value;
            // "Connection: keep-alive", on every TFB request, is recognised by two word compares: its line ends at
            // index 11, exactly where the search below would have found the CR.
            int special = colon == 10 && IsKeepAliveLine(afterColon) ? 11 : afterColon.IndexOfAnyExceptInRange((byte)0x20, (byte)0x7E);
            if (special >= 0 && afterColon[special] == (byte)'\r' && special + 1 < afterColon.Length && afterColon[special + 1] == (byte)'\n')
            {
                // The usual line: SP and visible ASCII up to CRLF. The search that found the line's end has also
                // validated its value.
                value = TrimWhitespace(afterColon.Slice(0, special));
                position += colon + 1 + special + 2;
            }
            else
            {
                // HTAB, obs-text or a control byte before the line's end (or no end yet): the exact checks.
                int lf = afterColon.IndexOf((byte)'\n');
                if (lf <= 0 || afterColon[lf - 1] != (byte)'\r')
                {
                    return 0;
                }

                value = TrimWhitespace(afterColon.Slice(0, lf - 1));
                if (!IsValidFieldValue(value))
                {
                    return 0;
                }

                position += colon + 1 + lf + 1;
            }

            if (ApplyField(rest.Slice(0, colon), value, ref facts) != RequestRejection.None)
            {
                return 0;
            }
        }

        if (position - fieldsStart - 2 > _limits.MaxRequestHeadersSize)
        {
            return 0;
        }

        head.HeaderCount = count;
        return ApplyFieldFacts(ref head, in facts) == RequestRejection.None ? position : 0;
    }

    /// <summary>
    /// The request line part of <see cref="TryParseWellFormedHead"/>: returns where the fields start, or 0 when
    /// <see cref="ParseHead"/> must decide. A GET (every TFB request) is parsed without first searching for the line's
    /// end: one search finds the end of the target, which must be followed by " HTTP/1.1" or " HTTP/1.0" and CRLF.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int ParseWellFormedRequestLine(ReadOnlySpan<byte> data, ref RequestHead head)
    {
        if (data.Length > 4 && BinaryPrimitives.ReadUInt32LittleEndian(data) == GetSpace)
        {
            // The target is visible ASCII (RFC 3986 §2) and ends at the first byte that is not, a space if well formed.
            const int TargetStart = 4;
            int targetLength = data.Slice(TargetStart).IndexOfAnyExceptInRange((byte)0x21, (byte)0x7E);
            int versionStart = TargetStart + targetLength + 1;
            if (targetLength > 0 && data.Length >= versionStart + 10 && data[versionStart - 1] == (byte)' '
                && versionStart + 8 <= _limits.MaxRequestLineSize
                && BinaryPrimitives.ReadUInt16LittleEndian(data.Slice(versionStart + 8)) == CrLf
                && ParseVersion(data.Slice(versionStart, 8), ref head) == RequestRejection.None)
            {
                head.Method = HttpMethod.Get;
                head.MethodLength = 3;
                head.TargetStart = TargetStart;
                head.TargetLength = targetLength;
                return ParseTarget(data.Slice(TargetStart, targetLength), TargetStart, ref head) == RequestRejection.None
                    ? versionStart + 10
                    : 0;
            }

            head = default;
        }

        int lineEnd = data.IndexOf((byte)'\n');
        if (lineEnd <= 1 || data[lineEnd - 1] != (byte)'\r' || data[0] == (byte)'\r'
            || lineEnd - 1 > _limits.MaxRequestLineSize
            || ParseRequestLine(data.Slice(0, lineEnd - 1), ref head) != RequestRejection.None)
        {
            return 0;
        }

        return lineEnd + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ParseStatus TryParseHeadSlow(
        in ReadOnlySequence<byte> buffer,
        out RequestHead head,
        out ReadOnlySpan<byte> headBytes,
        out int consumed,
        out RequestRejection rejection)
    {
        ReadOnlySpan<byte> first = buffer.FirstSpan;
        int end = first.IndexOf("\r\n\r\n"u8);
        if (end > 0 && first[0] != (byte)'\r' && end + 4 <= _limits.MaxHeadSize)
        {
            // The whole head is in the first segment and needs no copy.
            headBytes = first.Slice(0, end + 4);
            consumed = headBytes.Length;
            rejection = ParseHead(headBytes, out head);
            return rejection == RequestRejection.None ? ParseStatus.Complete : ParseStatus.Rejected;
        }

        if (end < 0 && !buffer.IsSingleSegment && !first.IsEmpty && first[0] != (byte)'\r')
        {
            int length = CopyHeadAcrossSegments(buffer);
            if (length > 0)
            {
                // What the general path below does for a head without leading empty lines, without its
                // byte-by-byte search for the end.
                headBytes = _scratch.AsSpan(0, length);
                consumed = length;
                if (TryParseWellFormedHead(headBytes, out head) == length)
                {
                    rejection = RequestRejection.None;
                    return ParseStatus.Complete;
                }

                rejection = ParseHead(headBytes, out head);
                return rejection == RequestRejection.None ? ParseStatus.Complete : ParseStatus.Rejected;
            }
        }

        return TryParseHeadGeneral(buffer, out head, out headBytes, out consumed, out rejection);
    }

    /// <summary>
    /// Copies a head that starts in the first segment and ends in a later one into the scratch buffer, and returns
    /// its length; 0 when its end (CRLF CRLF) is not within the first <see cref="HttpLimits.MaxHeadSize"/> bytes.
    /// Each segment is searched before it is copied, so only the head's own bytes are copied.
    /// </summary>
    private int CopyHeadAcrossSegments(in ReadOnlySequence<byte> buffer)
    {
        byte[] scratch = _scratch ??= new byte[_limits.MaxHeadSize];
        int copied = 0;
        foreach (ReadOnlyMemory<byte> memory in buffer)
        {
            ReadOnlySpan<byte> span = memory.Span;
            if (span.Length > scratch.Length - copied)
            {
                span = span.Slice(0, scratch.Length - copied);
            }

            if (span.IsEmpty)
            {
                if (copied == scratch.Length)
                {
                    break;
                }

                continue;
            }

            // An end that straddles the boundary ends within this segment's first three bytes: look at those
            // together with the last three bytes before them (already copied), before searching the segment alone.
            int lead = Math.Min(3, span.Length);
            span.Slice(0, lead).CopyTo(scratch.AsSpan(copied));
            int windowStart = Math.Max(0, copied - 3);
            int found = scratch.AsSpan(windowStart, copied + lead - windowStart).IndexOf("\r\n\r\n"u8);
            if (found >= 0)
            {
                return windowStart + found + 4;
            }

            found = span.IndexOf("\r\n\r\n"u8);
            int take = found >= 0 ? found + 4 : span.Length;
            span.Slice(lead, take - lead).CopyTo(scratch.AsSpan(copied + lead));
            copied += take;
            if (found >= 0)
            {
                return copied;
            }
        }

        return 0;
    }

    /// <summary>Any head: leading empty lines, incomplete heads, limits, and heads spread over segments.</summary>
    private ParseStatus TryParseHeadGeneral(
        in ReadOnlySequence<byte> buffer,
        out RequestHead head,
        out ReadOnlySpan<byte> headBytes,
        out int consumed,
        out RequestRejection rejection)
    {
        head = default;
        headBytes = default;
        consumed = 0;
        rejection = RequestRejection.None;

        // RFC 9112 §2.2: a server SHOULD ignore empty lines received before the request line.
        var reader = new SequenceReader<byte>(buffer);
        while (reader.IsNext("\r\n"u8, advancePast: true))
        {
        }

        if (reader.End || (reader.Remaining == 1 && reader.IsNext((byte)'\r')))
        {
            // Nothing but empty lines so far: drop them and wait.
            consumed = (int)Math.Min(reader.Consumed, int.MaxValue);
            return ParseStatus.Incomplete;
        }

        int skipped = (int)reader.Consumed;
        ReadOnlySequence<byte> rest = reader.UnreadSequence;
        if (!reader.TryReadTo(out ReadOnlySequence<byte> untilEnd, "\r\n\r\n"u8, advancePastDelimiter: true))
        {
            // A request line starts with a method token (RFC 9112 §3). A first byte that cannot start one (a TLS
            // ClientHello's 0x16 on this plain port, say) is refused now: waiting for a line end would leave such a
            // client hanging until the request timeout.
            if (!reader.TryPeek(out byte first) || !s_tokenChars.Contains(first))
            {
                rejection = RequestRejection.InvalidMethod;
                return ParseStatus.Rejected;
            }

            rejection = CheckIncompleteLimits(rest);
            return rejection == RequestRejection.None ? ParseStatus.Incomplete : ParseStatus.Rejected;
        }

        long length = untilEnd.Length + 4;
        if (length > _limits.MaxHeadSize)
        {
            // Over the limits as a whole; find out which one for the right status.
            rejection = CheckIncompleteLimits(rest.Slice(0, length));
            if (rejection == RequestRejection.None)
            {
                rejection = RequestRejection.HeadersTooLarge;
            }

            return ParseStatus.Rejected;
        }

        byte[] scratch = _scratch ??= new byte[_limits.MaxHeadSize];
        rest.Slice(0, length).CopyTo(scratch);
        headBytes = scratch.AsSpan(0, (int)length);
        consumed = skipped + (int)length;
        rejection = ParseHead(headBytes, out head);
        return rejection == RequestRejection.None ? ParseStatus.Complete : ParseStatus.Rejected;
    }

    /// <summary>Refuses a head that is still arriving but has already outgrown a limit.</summary>
    private RequestRejection CheckIncompleteLimits(in ReadOnlySequence<byte> partial)
    {
        SequencePosition? lineEnd = partial.PositionOf((byte)'\n');
        if (lineEnd is null)
        {
            return partial.Length > _limits.MaxRequestLineSize + 1 ? RequestRejection.RequestLineTooLong : RequestRejection.None;
        }

        long lineLength = partial.Slice(0, lineEnd.Value).Length;
        if (lineLength > _limits.MaxRequestLineSize + 1)
        {
            return RequestRejection.RequestLineTooLong;
        }

        return partial.Length - lineLength - 1 > _limits.MaxRequestHeadersSize + 2
            ? RequestRejection.HeadersTooLarge
            : RequestRejection.None;
    }

    /// <summary>The head kept by <see cref="Retain"/>.</summary>
    internal ReadOnlySpan<byte> Retained(int length) => _scratch.AsSpan(0, length);

    /// <summary>Makes a copy of a head that must outlive the receive buffer (while its body is still arriving).</summary>
    internal ReadOnlySpan<byte> Retain(ReadOnlySpan<byte> headBytes)
    {
        byte[] scratch = _scratch ??= new byte[_limits.MaxHeadSize];
        if (!Unsafe.AreSame(ref MemoryMarshal.GetReference(headBytes), ref scratch[0]))
        {
            headBytes.CopyTo(scratch);
        }

        return scratch.AsSpan(0, headBytes.Length);
    }
}
