using System.Buffers;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

/// <summary>
/// A head that is not all here yet. The connection leaves its bytes unconsumed and calls again with more behind them,
/// so the parser keeps how far it got (the lines parsed, what the request line said, the facts of the fields so far)
/// and where its LF search stopped in the unfinished line: a call parses only the bytes that are new, and a head that
/// arrives a byte at a time, even one line of it that long, costs time linear in its size
/// (docs/decisions/0015-resumed-head-parse.md).
/// </summary>
internal sealed partial class HttpParser
{
    // The minimum scratch buffer, one transport block: most heads that span segments fit in it.
    private const int MinScratchSize = 4096;

    // How many bytes beyond those already parsed a head spanning segments gathers before it is parsed again.
    private const int ParseStep = 512;

    // Holds a head that spans segments while it arrives, is parsed and answered. Rented from the shared pool only for
    // that long (see ReleaseScratch), and grown as the head does: a connection that once split a head must not keep
    // MaxHeadSize bytes for the rest of its life, nor one slow to send a small head pin that many.
    private byte[]? _scratch;

    // The pending head's progress, and its request line's parts once parsed.
    private Progress _progress;
    private RequestHead _partialHead;

    // How many of the pending head's bytes have been examined: the line its parse stopped in has no LF before this
    // offset, so only later bytes can end it. 0 when no head is pending.
    private int _examined;

    // How many of the pending head's bytes are in the scratch buffer (0: it is parsed in place, in the first segment),
    // and where the copy ended in the caller's buffer, so that the next call copies only what came after: a position
    // stays valid while the bytes before it are not consumed, and finding an offset would walk every segment.
    private int _copied;
    private SequencePosition _copyEnd;

    // A rejection ParseInFirstSegment found, for ParseAfterFirstSegment to return in the same call.
    private RequestRejection _firstRejection;

    /// <summary>
    /// Gives the scratch buffer back, if one is held and no head still arriving is in it. Call when no head parsed from
    /// it is in use any more (every request parsed so far is answered).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ReleaseScratch()
    {
        if (_scratch is not null && _copied == 0)
        {
            ReturnScratch();
        }
    }

    /// <summary>Forgets a head still arriving and gives the scratch buffer back: for a connection that is closing.</summary>
    internal void Reset()
    {
        ForgetPending();
        ReleaseScratch();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReturnScratch()
    {
        _headBuffers.Return(_scratch!);
        _scratch = null;
    }

    /// <summary>Keeps where the parse of the first segment stopped, when it did not reach the head's end.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Stop(int position, int fieldsStart, int fieldCount, FieldFacts facts, ref readonly RequestHead head, RequestRejection rejection, int examined)
    {
        _progress = new Progress { Position = position, FieldsStart = fieldsStart, FieldCount = fieldCount, Facts = facts };
        _partialHead = head;
        _firstRejection = rejection;
        _examined = examined;
    }

    /// <summary>Ends the pending head: the next call starts a new one. The scratch buffer stays until released.</summary>
    private void ForgetPending()
    {
        _progress = default;
        _partialHead = default;
        _examined = 0;
        _copied = 0;
        _copyEnd = default;
        _firstRejection = RequestRejection.None;
    }

    /// <summary>
    /// Goes on with the pending head (or starts one) at the start of <paramref name="buffer"/>, which follows
    /// <paramref name="skipped"/> bytes of empty lines: in place while it fits in the first segment, else in the
    /// scratch buffer. A parse runs only when the new bytes hold an LF, since before that the line it stopped in cannot
    /// have ended, and limits that depend on the head's size are judged on every call.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ParseStatus ParsePending(
        scoped in ReadOnlySequence<byte> buffer,
        int skipped,
        scoped ref RequestHead head,
        out ReadOnlySpan<byte> headBytes,
        out int consumed,
        out RequestRejection rejection)
    {
        headBytes = default;
        consumed = skipped;
        rejection = RequestRejection.None;
        ParseStatus status = ParseStatus.Incomplete;
        int limit = _limits.MaxHeadSize;
        if (_copied == 0)
        {
            ReadOnlySpan<byte> first = buffer.FirstSpan;
            int available = Math.Min(first.Length, limit);
            if (available > _examined && (_examined == 0 || first[_examined..available].Contains((byte)'\n')))
            {
                status = ParseLines(first.Slice(0, available), ref _progress, ref _partialHead, out rejection);
                if (status == ParseStatus.Complete)
                {
                    headBytes = first.Slice(0, _progress.Position);
                }
            }

            _examined = Math.Max(_examined, available);
        }

        if (status == ParseStatus.Incomplete && (_copied > 0 || !buffer.IsSingleSegment) && _examined < limit)
        {
            status = CopyAndParse(buffer, out rejection);
            if (status == ParseStatus.Complete)
            {
                headBytes = _scratch.AsSpan(0, _progress.Position);
            }
        }

        if (status == ParseStatus.Incomplete)
        {
            rejection = CheckIncompleteLimits(in buffer, in _progress);
            if (rejection == RequestRejection.None)
            {
                return ParseStatus.Incomplete;
            }

            status = ParseStatus.Rejected;
        }
        else if (status == ParseStatus.Complete)
        {
            head = _partialHead;
            consumed = skipped + _progress.Position;
        }

        ForgetPending();
        return status;
    }

    /// <summary>
    /// Copies the bytes of <paramref name="buffer"/> not yet in the scratch buffer into it, a segment at a time, up to
    /// the head's limit, and parses on from where the parse stopped once a line has ended, until the head is decided
    /// or the bytes run out.
    /// </summary>
    private ParseStatus CopyAndParse(scoped in ReadOnlySequence<byte> buffer, out RequestRejection rejection)
    {
        rejection = RequestRejection.None;
        int limit = _limits.MaxHeadSize;
        ReadOnlySequence<byte> rest = _copied == 0 ? buffer : buffer.Slice(_copyEnd);
        SequencePosition next = rest.Start;

        // A head not parsed at all yet is parsed whatever it holds: its first byte alone may be refused.
        bool lineEnded = _examined == 0;
        int parsed = _examined;
        ParseStatus status;
        while (_copied < limit)
        {
            SequencePosition segment = next;
            if (!rest.TryGet(ref next, out ReadOnlyMemory<byte> memory))
            {
                break;
            }

            ReadOnlySpan<byte> span = memory.Span;
            int start = _copied;
            int take = Math.Min(span.Length, limit - start);
            span = span.Slice(0, take);
            span.CopyTo(ScratchFor(start + take).AsSpan(start));
            _copied = start + take;
            _copyEnd = rest.GetPosition(take, segment);
            if (!lineEnded)
            {
                // Bytes copied again after an in-place parse of the first segment were examined already.
                lineEnded = span.Slice(Math.Clamp(_examined - start, 0, take)).Contains((byte)'\n');
                if (!lineEnded)
                {
                    _examined = Math.Max(_examined, _copied);
                    continue;
                }
            }

            // Each parse has a cost of its own: after small segments, it waits for ParseStep bytes (or the last of them).
            if (_copied - parsed >= ParseStep)
            {
                status = ParseLines(_scratch.AsSpan(0, _copied), ref _progress, ref _partialHead, out rejection);
                if (status != ParseStatus.Incomplete)
                {
                    return status;
                }

                parsed = _examined = _copied;
                lineEnded = false;
            }
        }

        if (!lineEnded || _copied == parsed)
        {
            return ParseStatus.Incomplete;
        }

        status = ParseLines(_scratch.AsSpan(0, _copied), ref _progress, ref _partialHead, out rejection);
        _examined = _copied;
        return status;
    }

    /// <summary>The scratch buffer, at least <paramref name="length"/> bytes long, with the pending head's bytes in it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private byte[] ScratchFor(int length)
    {
        byte[]? scratch = _scratch;
        return scratch is not null && scratch.Length >= length ? scratch : GrowScratch(length);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private byte[] GrowScratch(int length)
    {
        // Doubling keeps the copies of a head that grows a little at a time linear in its size.
        byte[]? old = _scratch;
        int size = Math.Max(length, Math.Min(Math.Max(MinScratchSize, 2 * (old?.Length ?? 0)), _limits.MaxHeadSize));
        byte[] scratch = _headBuffers.Rent(size);
        if (old is not null)
        {
            old.AsSpan(0, _copied).CopyTo(scratch);
            _headBuffers.Return(old);
        }

        _scratch = scratch;
        return scratch;
    }
}
