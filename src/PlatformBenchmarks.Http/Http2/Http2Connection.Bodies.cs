using System.Buffers;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// Request content (RFC 9113 §8.1): DATA frames go to their stream's <see cref="Http2Stream"/>, which its handler reads
/// through <see cref="RequestBody"/> as HTTP/1.1 handlers do. Receive flow control (§6.9): the connection's and each
/// stream's windows open again (WINDOW_UPDATE) only as content is read or dropped, so a handler that does not read holds
/// at most its stream's window here; Content-Length is checked against the DATA received (§8.1.1); trailers end it.
/// </summary>
internal sealed partial class Http2Connection<TApp>
{
    // A window is given back once half of it is used up: fewer WINDOW_UPDATE frames, and a peer blocked on a window has
    // always spent at least half of it, so it always gets one when the reader catches up.
    private const int WindowUpdateThreshold = Http2Output.DefaultWindowSize / 2;

    // The streams reset last, and by which side (§5.1, closed): frames in flight on a stream this side reset are dropped
    // without a word, while a client that sends on after its own RST_STREAM gets STREAM_CLOSED. Twice the streams a
    // client may have open, so that a burst of refusals is remembered whole; made at the first reset.
    private const int RememberedResets = 2 * MaxConcurrentStreams;
    private (int StreamId, bool ByPeer)[]? _resets;
    private int _nextReset;

    // What the client may still send on the connection, and what was read or dropped since the last WINDOW_UPDATE.
    private long _receiveWindow = Http2Output.DefaultWindowSize;
    private int _connectionUnacknowledged;

    // The header block being received is a stream's trailers; one of its fields was a pseudo-header; they are on a
    // stream this side reset, so only decoded (§5.1).
    private bool _inTrailers;
    private bool _trailersMalformed;
    private bool _trailersIgnored;

    /// <summary>Whether the client may still send content on the stream: open, and not reset.</summary>
    private bool IsReceiving(int streamId) =>
        _streams.TryGetValue(streamId, out Http2Stream? stream) && !stream.RequestEnded && !stream.IsReset;

    /// <summary>A request whose HEADERS did not end the stream: its content comes in DATA frames, read by its handler.</summary>
    private Step DispatchWithContent(int streamId, Http2Response response)
    {
        RequestHead head = _builder.Head;
        long maxBodySize = _app.MaxRequestBodySize(new HttpRequest(_builder.HeadBytes, in head), _limits.MaxRequestBodySize);
        if (_builder.HasContentLength && head.ContentLength > maxBodySize)
        {
            _responses.Push(response);
            return Refuse(streamId, HttpStatus.ContentTooLarge, RequestRejection.BodyTooLarge.ToReason());
        }

        if (head.BodyKind == BodyKind.None)
        {
            // No Content-Length: the content's length is known only at END_STREAM, as a chunked body's at its last chunk.
            head.BodyKind = BodyKind.Chunked;
        }

        var stream = new Http2Stream(this, streamId, response, requestEnded: false, _builder.HasContentLength ? head.ContentLength : -1, maxBodySize);
        AddStream(stream);
        ValueTask pending = Invoke(in head, stream.Body, response);

        if (pending.IsCompletedSuccessfully)
        {
            EndHandler(stream, fault: null);
        }
        else
        {
            _ = CompleteStreamAsync(stream, pending);
        }

        return Step.Continue;
    }

    private Step OnData(in Http2Frame frame, in ReadOnlySequence<byte> content)
    {
        int streamId = frame.StreamId;
        if (streamId > _lastStreamId)
        {
            return GoAway(Http2ErrorCode.ProtocolError, "DATA on an idle stream (RFC 9113 §5.1).");
        }

        // Every DATA frame counts against the connection's window, padding included, whatever its stream (§6.9).
        int length = frame.FlowControlledLength;
        if (length > _receiveWindow)
        {
            return GoAway(Http2ErrorCode.FlowControlError, "DATA past the connection's window (RFC 9113 §6.9.1).");
        }

        _receiveWindow -= length;
        if (!_streams.TryGetValue(streamId, out Http2Stream? stream) || stream.RequestEnded || stream.IsReset)
        {
            GiveBack(length);
            if (!IsResetHere(streamId, stream) && streamId <= _goAwayLastStreamId)
            {
                // §5.1, §6.1: DATA on a stream half-closed (remote) or closed is a stream error; after this side's
                // RST_STREAM, or past the final GOAWAY, it is what the client sent before it knew, and is ignored.
                ResetStream(streamId, Http2ErrorCode.StreamClosed);
            }

            return Step.Continue;
        }

        if (length > stream.Window)
        {
            GiveBack(length);
            ResetStream(streamId, Http2ErrorCode.FlowControlError);
            return Step.Continue;
        }

        if (stream.HandlerDone && !frame.EndStream && !_output.IsOwing(streamId))
        {
            // §8.1: the response is whole and the client still sends content no one will read: NO_ERROR asks it to stop.
            GiveBack(length);
            ResetStream(streamId, Http2ErrorCode.NoError);
            return Step.Continue;
        }

        stream.Window -= length;
        int padding = length - (int)content.Length;
        if (padding > 0)
        {
            stream.Unacknowledged += padding;
            OnConsumed(stream, padding);
        }

        if (!stream.Receive(in content))
        {
            // §8.1.1: more content than its Content-Length. The frame was counted against the connection's window and
            // will never be read: it goes back to the window with the stream.
            GiveBack((int)content.Length);
            ResetStream(streamId, Http2ErrorCode.ProtocolError);
            return Step.Continue;
        }

        if (frame.EndStream)
        {
            EndContent(stream);
        }

        return Step.Continue;
    }

    /// <summary>END_STREAM on DATA or trailers: the content is whole.</summary>
    private void EndContent(Http2Stream stream)
    {
        if (!stream.End())
        {
            // §8.1.1: less content than its Content-Length.
            ResetStream(stream.Id, Http2ErrorCode.ProtocolError);
        }
        else if (stream.HandlerDone)
        {
            RemoveStream(stream);
        }
    }

    /// <summary>
    /// HEADERS on a stream still receiving content: its trailers (§8.1); or on a stream this side reset (
    /// <paramref name="ignored"/>), decoded to keep HPACK in step and otherwise ignored (§5.1).
    /// </summary>
    private Step OnTrailers(in Http2Frame frame, in ReadOnlySequence<byte> content, bool ignored = false)
    {
        _trailersIgnored = ignored;
        _headersStreamId = frame.StreamId;
        _headersEndStream = frame.EndStream;
        _headerBlockBytes = 0;
        _headerBlockStart = Time.GetTimestamp();
        _inTrailers = true;
        _trailersMalformed = false;
        return OnHeaderFragment(in frame, in content);
    }

    /// <summary>A fragment of trailers: decoded to keep HPACK in step, and checked; the fields themselves are not kept.</summary>
    private Step OnTrailerFragment(in Http2Frame frame, in ReadOnlySequence<byte> content)
    {
        var sink = new TrailerSink();
        HpackError decoded = _decoder.Decode(content, frame.EndHeaders, ref sink);
        _trailersMalformed |= sink.HasPseudoHeader;
        if (decoded is not (HpackError.None or HpackError.HeaderListTooLarge))
        {
            return GoAway(Http2ErrorCode.CompressionError, "A header block HPACK cannot decode (RFC 7541).");
        }

        if (!frame.EndHeaders)
        {
            return Step.Continue;
        }

        int streamId = _headersStreamId;
        _headersStreamId = 0;
        _inTrailers = false;
        if (_trailersIgnored)
        {
            return Step.Continue;
        }

        if (!_headersEndStream || _trailersMalformed)
        {
            // §8.1: trailers end the stream, and carry no pseudo-header.
            ResetStream(streamId, Http2ErrorCode.ProtocolError);
        }
        else if (_streams.TryGetValue(streamId, out Http2Stream? stream))
        {
            EndContent(stream);
        }

        return Step.Continue;
    }

    /// <summary>
    /// Content of <paramref name="stream"/> was read or dropped: the connection's window gets it back, and the stream's
    /// too while the client may still send; the WINDOW_UPDATE frames go once half a window is due.
    /// </summary>
    public void OnConsumed(Http2Stream stream, int count)
    {
        Credit(stream, count);
        if (QueueFlush())
        {
            _ = FlushInBackgroundAsync();
        }
    }

    /// <summary>The windows' side of <see cref="OnConsumed"/>, without the flush.</summary>
    private void Credit(Http2Stream stream, int count)
    {
        GiveBack(count);
        if (stream.Unacknowledged >= WindowUpdateThreshold && !stream.RequestEnded && !stream.IsReset && !_output.IsClosed)
        {
            _output.WriteWindowUpdate(stream.Id, stream.Unacknowledged);
            stream.Window += stream.Unacknowledged;
            stream.Unacknowledged = 0;
        }
    }

    /// <summary>Bytes of the connection's window read or dropped: given back once half the window is due.</summary>
    private void GiveBack(int count)
    {
        _connectionUnacknowledged += count;
        if (_connectionUnacknowledged >= WindowUpdateThreshold && !_output.IsClosed)
        {
            _output.WriteWindowUpdate(0, _connectionUnacknowledged);
            _receiveWindow += _connectionUnacknowledged;
            _connectionUnacknowledged = 0;
        }
    }

    private void RememberReset(int streamId, bool byPeer)
    {
        _resets ??= new (int, bool)[RememberedResets];
        _resets[_nextReset] = (streamId, byPeer);
        _nextReset = (_nextReset + 1) % RememberedResets;
    }

    /// <summary>
    /// Whether the last reset of <paramref name="streamId"/> was this side's, so frames the client sent before it knew
    /// are ignored; a stream reset too long ago to be remembered counts as this side's while it is in the table.
    /// </summary>
    private bool IsResetHere(int streamId, Http2Stream? stream)
    {
        if (_resets is not null)
        {
            // Newest first: a client's reset after this side's, or the other way, is the one that counts.
            for (int i = 1; i <= RememberedResets; i++)
            {
                (int id, bool byPeer) = _resets[(_nextReset + RememberedResets - i) % RememberedResets];
                if (id == streamId)
                {
                    return !byPeer;
                }
            }
        }

        return stream is { IsReset: true };
    }

    /// <summary>Checks trailer fields as they are decoded: a pseudo-header makes them malformed (§8.1).</summary>
    private struct TrailerSink : IHpackFieldSink
    {
        public bool HasPseudoHeader { get; private set; }

        public void OnField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, bool neverIndexed)
        {
            if ((uint)(staticNameIndex - 1) < HpackStaticTable.Status500 || (!name.IsEmpty && name[0] == (byte)':'))
            {
                HasPseudoHeader = true;
            }
        }
    }
}
