using System.Buffers;
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
        int end = first.IndexOf("\r\n\r\n"u8);
        if (end > 0 && first[0] != (byte)'\r' && end + 4 <= _limits.MaxHeadSize)
        {
            // The common case: the whole head is in the first segment and needs no copy.
            headBytes = first.Slice(0, end + 4);
            consumed = headBytes.Length;
            rejection = ParseHead(headBytes, out head);
            return rejection == RequestRejection.None ? ParseStatus.Complete : ParseStatus.Rejected;
        }

        return TryParseHeadSlow(buffer, out head, out headBytes, out consumed, out rejection);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ParseStatus TryParseHeadSlow(
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
