using System.Buffers;
using System.Runtime.CompilerServices;

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
/// An HTTP/1.1 request-head parser (RFC 9112 §2-§5). It reads a head once, line by line, validating each line as it
/// finds its end: the request line, then each field line, up to the empty line. The common shapes (a GET, the usual
/// field names, a value of visible ASCII) are accepted by cheaper checks inside that same pass; any line they do not
/// accept is checked exactly, alone, and the pass goes on. So a head is parsed the same way whatever it holds, and the
/// first problem in it, in byte order, decides the rejection. A head inside the first buffer segment is parsed in
/// place; a head that goes on into later segments is copied into a per-parser buffer as it arrives. A head that is not
/// all here yet is resumed by the next call where this one stopped (HttpParser.Pending.cs), so a head arriving in many
/// pieces costs what it costs in one. One parser serves one connection; it is not thread-safe.
/// </summary>
internal sealed partial class HttpParser
{
    // RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    internal static readonly SearchValues<byte> s_tokenChars =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"u8);

    private readonly HttpLimits _limits;
    private readonly ArrayPool<byte> _headBuffers;

    /// <param name="headBuffers">Where the copy of a head split across segments is kept; the shared array pool unless given.</param>
    public HttpParser(HttpLimits limits, ArrayPool<byte>? headBuffers = null)
    {
        _limits = limits;
        _headBuffers = headBuffers ?? ArrayPool<byte>.Shared;
    }

    public HttpLimits Limits => _limits;

    /// <summary>How far the parse of one head has got; offsets count from the head's first byte.</summary>
    private struct Progress
    {
        /// <summary>Where the next unparsed line starts.</summary>
        public int Position;

        /// <summary>Where the field lines start; 0 until the request line has been parsed.</summary>
        public int FieldsStart;

        public int FieldCount;

        public FieldFacts Facts;
    }

    /// <summary>
    /// Parses the head at the start of <paramref name="buffer"/>. On <see cref="ParseStatus.Complete"/>,
    /// <paramref name="headBytes"/> holds the head (request line, fields and the empty line) and
    /// <paramref name="consumed"/> is the number of buffer bytes it took, leading empty lines included. On
    /// <see cref="ParseStatus.Incomplete"/>, <paramref name="consumed"/> counts the leading empty lines, which may be
    /// dropped, and the parser keeps how far it got: the next call must pass the same bytes from
    /// <paramref name="consumed"/> on, with any that have arrived since after them (as a pipe's next read does when the
    /// reader has consumed <paramref name="consumed"/> bytes), and it parses only what is new. A complete or rejected
    /// head, or <see cref="Reset"/>, ends that: the next call starts a new head.
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
        int length = ParseInFirstSegment(first, out head);
        if (length > 0)
        {
            // The common case: the whole head is in the first segment, parsed in place.
            headBytes = first.Slice(0, length);
            consumed = length;
            rejection = RequestRejection.None;
            return ParseStatus.Complete;
        }

        return ParseAfterFirstSegment(buffer, ref head, out headBytes, out consumed, out rejection);
    }

    /// <summary>
    /// Parses a head that starts at byte 0 of <paramref name="first"/> and returns its length when it ends there too.
    /// Otherwise it returns 0, and when it did parse, leaves where it stopped (and why) in the pending head's state for
    /// <see cref="ParseAfterFirstSegment"/> to go on from.
    /// </summary>
    // Kept out of line, so what is inlined into each caller is small: inlined, the parse bloated every caller and its
    // speed depended on the call site. The frame's locals are all written before they are read, so zeroing them is
    // wasted work (docs/decisions/0008-measured-code-choices.md).
    [MethodImpl(MethodImplOptions.NoInlining)]
    [SkipLocalsInit]
    internal int ParseInFirstSegment(ReadOnlySpan<byte> first, out RequestHead head)
    {
        head = default;
        if (_examined != 0 || first.IsEmpty || first[0] == (byte)'\r')
        {
            // A head already part parsed goes on where it stopped, and empty lines first (or nothing yet) are skipped:
            // both by the slower path. This is the only test of the pending state on the way of a whole head.
            return 0;
        }

        // Only FieldsStart is read before the rest is written.
        Unsafe.SkipInit(out Progress progress);
        progress.FieldsStart = 0;
        ParseStatus status = ParseLines(first, ref progress, ref head, out RequestRejection rejection);
        if (status == ParseStatus.Complete)
        {
            return progress.Position;
        }

        Stop(progress.Position, progress.FieldsStart, progress.FieldCount, progress.Facts, in head, rejection, Math.Min(first.Length, _limits.MaxHeadSize));
        return 0;
    }

    /// <summary>
    /// Whatever <see cref="ParseInFirstSegment"/> did not finish: a rejection, leading empty lines, or a head that goes
    /// on. Called right after it returned 0, with the buffer whose first segment it was given and the head it left;
    /// <see cref="TryParseHead"/> is the two together.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal ParseStatus ParseAfterFirstSegment(
        scoped in ReadOnlySequence<byte> buffer,
        scoped ref RequestHead head,
        out ReadOnlySpan<byte> headBytes,
        out int consumed,
        out RequestRejection rejection)
    {
        if (_firstRejection != RequestRejection.None)
        {
            headBytes = default;
            consumed = 0;
            rejection = _firstRejection;
            ForgetPending();
            return ParseStatus.Rejected;
        }

        return _examined == 0
            ? TryParseHeadAfterEmptyLines(buffer, ref head, out headBytes, out consumed, out rejection)
            : ParsePending(buffer, 0, ref head, out headBytes, out consumed, out rejection);
    }

    /// <summary>
    /// Parses the lines of a head from <see cref="Progress.Position"/> to its end, each once. Returns
    /// <see cref="ParseStatus.Incomplete"/> when <paramref name="data"/> ends inside a line, with
    /// <see cref="Progress.Position"/> at that line's start (or <see cref="Progress.FieldsStart"/> 0 inside the request
    /// line) and no LF in <paramref name="data"/> after it, so a longer copy of the same bytes resumes there and only
    /// the bytes after <paramref name="data"/> can end that line; on <see cref="ParseStatus.Complete"/>,
    /// <see cref="Progress.Position"/> is the head's length.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ParseStatus ParseLines(ReadOnlySpan<byte> data, scoped ref Progress progress, scoped ref RequestHead head, out RequestRejection rejection)
    {
        if (data.Length > _limits.MaxHeadSize)
        {
            // A head ending beyond MaxHeadSize is over a limit; never scan further than that.
            data = data.Slice(0, _limits.MaxHeadSize);
        }

        // The loop works on locals, written back only when it stops inside the head.
        int fieldsStart = progress.FieldsStart;
        int position;
        int count;
        FieldFacts facts;
        if (fieldsStart == 0)
        {
            RequestLineResult line = ParseRequestLine(data, ref head);
            if (!line.IsComplete)
            {
                rejection = line.Rejection;
                return line.IsRejected ? ParseStatus.Rejected : ParseStatus.Incomplete;
            }

            fieldsStart = line.FieldsStart;
            progress.FieldsStart = fieldsStart;
            position = fieldsStart;
            count = 0;
            facts = default;
        }
        else
        {
            position = progress.Position;
            count = progress.FieldCount;
            facts = progress.Facts;
        }

        // The limits as bounds on the loop's own locals: a field section ends by maxFieldsEnd and holds maxCount lines.
        int maxFieldsEnd = fieldsStart + _limits.MaxRequestHeadersSize;
        int maxCount = _limits.MaxRequestHeaderCount;
        while (true)
        {
            ReadOnlySpan<byte> rest = data.Slice(position);
            if (rest.Length >= 2 && rest[0] == (byte)'\r' && rest[1] == (byte)'\n')
            {
                // The empty line that ends the head.
                progress.Position = position + 2;
                head.HeaderCount = count;
                rejection = ApplyFieldFacts(ref head, in facts);
                return rejection == RequestRejection.None ? ParseStatus.Complete : ParseStatus.Rejected;
            }

            // A common name is recognised by word compares. Any other name is all token characters, and ':' is not
            // one: the first non-token byte must be the colon, so one search both finds it and validates the name.
            int colon = rest.Length >= 16 ? CommonFieldNameLength(rest) : 0;
            if (colon == 0)
            {
                colon = rest.IndexOfAnyExcept(s_tokenChars);
            }

            if (colon > 0 && rest[colon] == (byte)':')
            {
                // The usual value is SP and visible ASCII up to CRLF: the search that finds the line's end, finding CR
                // LF, has validated the value as well. "Connection: keep-alive", on every TFB request, is recognised
                // by two word compares instead: its line ends at index 11 after the colon, where the search would
                // have found the CR.
                ReadOnlySpan<byte> afterColon = rest.Slice(colon + 1);
                int end = colon == 10 && IsKeepAliveLine(afterColon) ? 11 : afterColon.IndexOfAnyExceptInRange((byte)0x20, (byte)0x7E);
                if (end >= 0 && afterColon[end] == (byte)'\r' && end + 1 < afterColon.Length && afterColon[end + 1] == (byte)'\n')
                {
                    // A line's size and number are judged before its content: a field section over its limits is
                    // refused for that, whatever the line holds.
                    position += colon + 1 + end + 2;
                    if (position > maxFieldsEnd || ++count > maxCount)
                    {
                        rejection = position > maxFieldsEnd ? RequestRejection.HeadersTooLarge : RequestRejection.TooManyHeaders;
                        return ParseStatus.Rejected;
                    }

                    rejection = ApplyField(rest.Slice(0, colon), TrimSpaces(afterColon.Slice(0, end)), ref facts);
                    if (rejection != RequestRejection.None)
                    {
                        return ParseStatus.Rejected;
                    }

                    continue;
                }
            }

            // Any other line (HTAB or obs-text in its value, not all here yet, invalid) is checked exactly.
            FieldLine line = FindFieldLineExactly(rest);
            if (line.Length == 0)
            {
                progress.Position = position;
                progress.FieldCount = count;
                progress.Facts = facts;
                rejection = RequestRejection.None;
                return ParseStatus.Incomplete;
            }

            position += line.Length;
            if (position > maxFieldsEnd || ++count > maxCount || line.Rejection != RequestRejection.None)
            {
                rejection = position > maxFieldsEnd ? RequestRejection.HeadersTooLarge
                    : count > maxCount ? RequestRejection.TooManyHeaders
                    : line.Rejection;
                return ParseStatus.Rejected;
            }

            rejection = ApplyField(rest.Slice(0, line.NameLength), rest.Slice(line.ValueStart, line.ValueLength), ref facts);
            if (rejection != RequestRejection.None)
            {
                return ParseStatus.Rejected;
            }
        }
    }

    /// <summary>
    /// A buffer that starts with CR (or with an empty segment): empty lines before the request line are skipped
    /// (RFC 9112 §2.2: a server SHOULD ignore them), then the head is parsed as usual.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ParseStatus TryParseHeadAfterEmptyLines(
        scoped in ReadOnlySequence<byte> buffer,
        scoped ref RequestHead head,
        out ReadOnlySpan<byte> headBytes,
        out int consumed,
        out RequestRejection rejection)
    {
        var reader = new SequenceReader<byte>(buffer);
        while (reader.IsNext("\r\n"u8, advancePast: true))
        {
        }

        int skipped = (int)Math.Min(reader.Consumed, int.MaxValue);
        if (reader.End || (reader.Remaining == 1 && reader.IsNext((byte)'\r')))
        {
            // Nothing but empty lines so far: drop them and wait.
            headBytes = default;
            consumed = skipped;
            rejection = RequestRejection.None;
            return ParseStatus.Incomplete;
        }

        // The head starts after them: what is kept of its parse counts from there, as the next call's buffer will.
        return ParsePending(reader.UnreadSequence, skipped, ref head, out headBytes, out consumed, out rejection);
    }

    /// <summary>
    /// Refuses a head that is still arriving, <paramref name="buffer"/> so far, but has already outgrown a limit: its
    /// request line, or its field section (which may still end with the 2 bytes of the empty line).
    /// </summary>
    private RequestRejection CheckIncompleteLimits(scoped in ReadOnlySequence<byte> buffer, ref readonly Progress progress) =>
        progress.FieldsStart == 0
            ? buffer.Length > _limits.MaxRequestLineSize + 1 ? LineTooLong(buffer) : RequestRejection.None
            : buffer.Length - progress.FieldsStart > _limits.MaxRequestHeadersSize + 2 ? RequestRejection.HeadersTooLarge : RequestRejection.None;

    /// <summary>
    /// A request line over the limit: 414 as RFC 9112 §3 requires for a long target. When not even the method has ended
    /// within the limit, the line is no request line this server can read at all: 400. (The same section recommends 501
    /// for a method longer than any implemented; a method past the whole line's limit is refused as malformed instead,
    /// which is what HTTP conformance suites expect, and nothing in RFC 9112 forbids.)
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private RequestRejection LineTooLong(scoped in ReadOnlySequence<byte> line) =>
        line.Slice(0, Math.Min(line.Length, _limits.MaxRequestLineSize)).PositionOf((byte)' ') is null
            ? RequestRejection.MethodTooLong
            : RequestRejection.RequestLineTooLong;

    private RequestRejection LineTooLong(ReadOnlySpan<byte> line) =>
        line.Slice(0, Math.Min(line.Length, _limits.MaxRequestLineSize)).Contains((byte)' ')
            ? RequestRejection.RequestLineTooLong
            : RequestRejection.MethodTooLong;
}
