using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// One HTTP/2 connection with prior knowledge (RFC 9113 §3.3): the client preface, then frames. It reads every frame of
/// a read, dispatches each request as its header block ends, and flushes once per read, as the HTTP/1.1 connection
/// does; a handler that completes later answers on its own, without holding the other streams. Generic over the
/// application struct so requests reach it without an interface call. Its design and what it does not do yet:
/// docs/decisions/0020-http2.md.
/// </summary>
internal sealed partial class Http2Connection<TApp>
    where TApp : struct, IHttpApplication
{
    /// <summary>The streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS).</summary>
    public const int MaxConcurrentStreams = 100;

    private enum Step : byte
    {
        Continue,
        NeedMore,
        Close,
    }

    private readonly PipeReader _input;
    private readonly PipeWriter _transportOutput;
    private readonly Http2Output _output;
    private readonly Http2Response _response;
    private readonly DateHeader _date;
    private readonly HpackDecoder _decoder;
    private readonly Http2RequestHeadBuilder _builder = new();
    private readonly HttpConnectionContext _context;
    private readonly HttpLimits _limits;
    private readonly ILogger _logger;
    private readonly CancellationToken _closeRequested;
    private TApp _app;

    private bool _prefaceReceived;
    private bool _settingsReceived;
    private int _lastStreamId;

    // The header block being received: its stream (0 when none), whether its HEADERS ended the stream, its encoded
    // bytes so far, and whether the stream is refused once the block is decoded.
    private int _headersStreamId;
    private bool _headersEndStream;
    private int _headerBlockBytes;
    private bool _refuseStream;

    public Http2Connection(TApp app, IDuplexPipe transport, HttpServerContext context, ConnectionLoop loop = default, CancellationToken closeRequested = default)
    {
        _app = app;
        _input = transport.Input;
        _transportOutput = transport.Output;
        _output = new Http2Output(transport.Output);
        _date = context.Date;
        _response = new Http2Response(_output, _date);
        _context = new HttpConnectionContext(context, loop);
        _limits = context.Limits;
        _logger = context.Logger;
        _closeRequested = closeRequested;
        _decoder = new HpackDecoder(HeaderTableSize, MaxHeaderListSize);
    }

    /// <summary>The client preface (§3.4).</summary>
    internal static ReadOnlySpan<byte> Preface => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8;

    // RFC 7541's default: the client may use it before it has our SETTINGS, so advertising it needs no transition.
    private const int HeaderTableSize = 4096;

    /// <summary>SETTINGS_MAX_HEADER_LIST_SIZE: the HTTP/1.1 head's limits, so a request fits both codecs alike.</summary>
    private int MaxHeaderListSize => _limits.MaxHeadSize;

    /// <summary>
    /// The encoded bytes a header block may take across HEADERS and CONTINUATION: twice the decoded limit, since HPACK
    /// shrinks but a peer that sends more than that is sending endless CONTINUATION frames, not a request.
    /// </summary>
    private int MaxHeaderBlockBytes => 2 * MaxHeaderListSize;

    public async Task ExecuteAsync()
    {
        using CancellationTokenRegistration closing = _closeRequested.UnsafeRegister(static s => ((PipeReader)s!).CancelPendingRead(), _input);
        try
        {
            // The server's preface is a SETTINGS frame (§3.4), sent without waiting for the client's.
            StartTimers();
            _output.WriteSettings(
            [
                (Http2SettingsParameter.HeaderTableSize, HeaderTableSize),
                (Http2SettingsParameter.MaxConcurrentStreams, MaxConcurrentStreams),
                (Http2SettingsParameter.InitialWindowSize, Http2Output.DefaultWindowSize),
                (Http2SettingsParameter.MaxHeaderListSize, (uint)MaxHeaderListSize),
            ]);
            await ProcessFramesAsync();
        }
        catch (Exception ex) when (ex is IOException or System.Net.Sockets.SocketException or ObjectDisposedException
            or Microsoft.AspNetCore.Connections.ConnectionResetException or Microsoft.AspNetCore.Connections.ConnectionAbortedException)
        {
            LogConnectionFault(_logger, ex.Message);
        }
        finally
        {
            await CloseAsync();
        }
    }

    private async Task ProcessFramesAsync()
    {
        while (true)
        {
            CancellationToken timeout;
            bool written;
            lock (Sync)
            {
                if (ArmTimer(out timeout) == Step.Close)
                {
                    break;
                }

                // A deadline that passed may have written frames (the final GOAWAY, streams reset for a stall).
                written = _output.HasOutput;
            }

            if (written && !await FlushAsync())
            {
                return;
            }

            ReadResult result;
            try
            {
                result = await _input.ReadAsync(timeout);
            }
            catch (OperationCanceledException) when (timeout.IsCancellationRequested)
            {
                // A deadline came: ArmTimer tells which, and whether it has passed.
                continue;
            }

            ReadOnlySequence<byte> buffer = result.Buffer;
            Step step;
            lock (Sync)
            {
                // Handlers that complete on their own wait while the frames of this read are handled: the loop writes
                // under the lock, and a request that completes here is flushed with the rest of the read.
                _inLoop = true;
                step = result.IsCanceled ? OnCanceledRead() : Step.Continue;
                while (step == Step.Continue)
                {
                    step = ProcessNext(ref buffer);
                }

                if (IsDrained)
                {
                    step = Step.Close;
                }

                step = AfterFrames(step);
                _inLoop = false;
            }

            _input.AdvanceTo(buffer.Start, buffer.End);
            if (!await FlushAsync() || step == Step.Close || result.IsCompleted)
            {
                return;
            }
        }

        await FlushAsync();
    }

    /// <summary>Reads and handles the next frame of <paramref name="buffer"/>, slicing off what it used.</summary>
    private Step ProcessNext(ref ReadOnlySequence<byte> buffer)
    {
        if (!_prefaceReceived)
        {
            return ReadPreface(ref buffer);
        }

        Http2ReadStatus status = Http2FrameReader.TryReadFrame(buffer, Http2Frame.DefaultMaxFrameSize, out Http2Frame frame, out ReadOnlySequence<byte> content, out Http2FrameError error);
        if (status == Http2ReadStatus.Incomplete)
        {
            return Step.NeedMore;
        }

        if (status == Http2ReadStatus.Error)
        {
            if (error.IsConnectionError || _headersStreamId != 0 || !_settingsReceived)
            {
                return GoAway(error.Code, error.Reason);
            }

            buffer = buffer.Slice(frame.TotalLength);
            if (frame.StreamId > _lastStreamId && frame.Type != Http2FrameType.Priority)
            {
                return GoAway(Http2ErrorCode.ProtocolError, "A frame on an idle stream (RFC 9113 §5.1).");
            }

            ResetStream(frame.StreamId, error.Code);
            return Step.Continue;
        }

        buffer = buffer.Slice(frame.TotalLength);
        if (_headersStreamId != 0 && (frame.Type != Http2FrameType.Continuation || frame.StreamId != _headersStreamId))
        {
            return GoAway(Http2ErrorCode.ProtocolError, "A header block was interrupted (RFC 9113 §6.10).");
        }

        if (!_settingsReceived && frame.Type != Http2FrameType.Settings)
        {
            return GoAway(Http2ErrorCode.ProtocolError, "The client preface did not go on with SETTINGS (RFC 9113 §3.4).");
        }

        if (IsFlood(in frame, in content))
        {
            return Step.Close;
        }

        return frame.Type switch
        {
            Http2FrameType.Headers => OnHeaders(in frame, in content),
            Http2FrameType.Continuation => OnContinuation(in frame, in content),
            Http2FrameType.Data => OnData(in frame, in content),
            Http2FrameType.Settings => OnSettings(in frame, content),
            Http2FrameType.Ping => OnPing(in frame),
            Http2FrameType.WindowUpdate => OnWindowUpdate(in frame),
            Http2FrameType.RstStream => OnRstStream(in frame),
            Http2FrameType.GoAway => Step.Close,

            // PRIORITY is deprecated and ignored (§5.3.2); extension frames are ignored (§5.5).
            _ => Step.Continue,
        };
    }

    /// <summary>The client preface, compared as it arrives, so that an HTTP/1.1 request is refused from its first bytes.</summary>
    private Step ReadPreface(ref ReadOnlySequence<byte> buffer)
    {
        ReadOnlySpan<byte> preface = Preface;
        int length = (int)Math.Min(buffer.Length, preface.Length);
        Span<byte> received = stackalloc byte[preface.Length];
        buffer.Slice(0, length).CopyTo(received);
        if (!received.Slice(0, length).SequenceEqual(preface.Slice(0, length)))
        {
            // §3.4: a preface that is not this one is a connection error; an HTTP/1.1 request on this port is one.
            buffer = buffer.Slice(buffer.End);
            return GoAway(Http2ErrorCode.ProtocolError, "This port speaks only HTTP/2 with prior knowledge (RFC 9113 §3.4).");
        }

        if (length < preface.Length)
        {
            return Step.NeedMore;
        }

        buffer = buffer.Slice(length);
        _prefaceReceived = true;
        return Step.Continue;
    }

    private Step OnHeaders(in Http2Frame frame, in ReadOnlySequence<byte> content)
    {
        if ((frame.StreamId & 1) == 0)
        {
            return GoAway(Http2ErrorCode.ProtocolError, "A client stream with an even identifier (RFC 9113 §5.1.1).");
        }

        if (frame.StreamId <= _lastStreamId)
        {
            if (IsReceiving(frame.StreamId))
            {
                return OnTrailers(in frame, in content);
            }

            if (IsResetHere(frame.StreamId, _streams.GetValueOrDefault(frame.StreamId)))
            {
                // §5.1: frames on a stream this side reset may have been in flight (trailers among them): ignored.
                return OnTrailers(in frame, in content, ignored: true);
            }

            // A stream this side has closed, or one half-closed by the client still receiving its response (§5.1).
            return _output.IsOwing(frame.StreamId) || _streams.ContainsKey(frame.StreamId)
                ? GoAway(Http2ErrorCode.StreamClosed, "HEADERS on a stream the client has half-closed (RFC 9113 §5.1).")
                : GoAway(Http2ErrorCode.ProtocolError, "HEADERS on a stream identifier already used (RFC 9113 §5.1.1).");
        }

        _lastStreamId = frame.StreamId;
        _headersStreamId = frame.StreamId;
        _headersEndStream = frame.EndStream;
        _headerBlockBytes = 0;
        _headerBlockStart = Time.GetTimestamp();

        // Past the final GOAWAY's last stream, a request is ignored (§6.8); its block is still decoded for HPACK's sake.
        _refuseStream = frame.StreamId > _goAwayLastStreamId || MustRefuseStream();
        _builder.Start(_limits.MaxRequestHeaderCount);
        return OnHeaderFragment(in frame, in content);
    }

    private Step OnContinuation(in Http2Frame frame, in ReadOnlySequence<byte> content) =>
        _headersStreamId == 0
            ? GoAway(Http2ErrorCode.ProtocolError, "CONTINUATION without a header block (RFC 9113 §6.10).")
            : OnHeaderFragment(in frame, in content);

    /// <summary>Decodes a fragment of the header block as it arrives; the block's last one dispatches the request.</summary>
    private Step OnHeaderFragment(in Http2Frame frame, in ReadOnlySequence<byte> content)
    {
        _headerBlockBytes += (int)content.Length;
        if (_headerBlockBytes > MaxHeaderBlockBytes)
        {
            return GoAway(Http2ErrorCode.EnhanceYourCalm, "A header block larger than the server takes.");
        }

        if (_inTrailers)
        {
            return OnTrailerFragment(in frame, in content);
        }

        Http2RequestHeadBuilder.FieldSink sink = _builder.Sink;
        HpackError decoded = _decoder.Decode(content, frame.EndHeaders, ref sink);
        if (decoded is not (HpackError.None or HpackError.HeaderListTooLarge))
        {
            // RFC 9113 §4.3: the decoder is out of step with the client's encoder.
            return GoAway(Http2ErrorCode.CompressionError, "A header block HPACK cannot decode (RFC 7541).");
        }

        if (!frame.EndHeaders)
        {
            return Step.Continue;
        }

        int streamId = _headersStreamId;
        _headersStreamId = 0;
        if (_refuseStream)
        {
            // Past the final GOAWAY's last stream the request is ignored (§6.8). Otherwise past
            // SETTINGS_MAX_CONCURRENT_STREAMS, or too many bytes held: REFUSED_STREAM tells the client it may retry (§5.1.2).
            return streamId > _goAwayLastStreamId ? Step.Continue : RefuseStream(streamId);
        }

        Http2HeadError headError = _builder.Complete();
        if (decoded == HpackError.HeaderListTooLarge || headError == Http2HeadError.TooManyFields)
        {
            return Refuse(streamId, HttpStatus.RequestHeaderFieldsTooLarge, "Request header fields too large.\n"u8);
        }

        if (headError != Http2HeadError.None || (_headersEndStream && _builder.HasContentLength && _builder.Head.ContentLength != 0))
        {
            // §8.1.1: a malformed request (a Content-Length with no DATA to match it among them).
            ResetStream(streamId, Http2ErrorCode.ProtocolError);
            return Step.Continue;
        }

        return Dispatch(streamId);
    }

    /// <summary>
    /// Answers a request the engine does not pass on; if the client is still sending it, its content then gets RST_STREAM
    /// NO_ERROR, which tells it to stop without failing the response (§8.1).
    /// </summary>
    private Step Refuse(int streamId, HttpStatus status, ReadOnlySpan<byte> reason)
    {
        if (!_headersEndStream)
        {
            // Half-closed (local) once answered, as a handler's early answer (EndHandler): its windows and frames are
            // followed, and the content that comes gets NO_ERROR (OnData).
            var stream = new Http2Stream(this, streamId, _response, requestEnded: false, contentLength: -1, maxBodySize: long.MaxValue) { HandlerDone = true };
            AddStream(stream);
            KeepAnswered(stream);
        }

        _response.Reset(streamId, isHead: false);
        _response.WriteText(status, reason);
        return Step.Continue;
    }

    private Step OnSettings(in Http2Frame frame, ReadOnlySequence<byte> content)
    {
        if (frame.IsAck)
        {
            // Our settings are acknowledged (§6.5.3); none of them changes what the decoder already allows.
            _settingsAckDue = false;
            return Step.Continue;
        }

        _settingsReceived = true;
        var settings = new Http2FrameReader.SettingsReader(content);
        while (settings.TryRead(out Http2SettingsParameter parameter, out uint value))
        {
            switch (parameter)
            {
                case Http2SettingsParameter.HeaderTableSize:
                    _output.Encoder.SetPeerTableSize(value);
                    break;
                case Http2SettingsParameter.InitialWindowSize:
                    if (!_output.OnInitialWindowSize(value))
                    {
                        return GoAway(Http2ErrorCode.FlowControlError, "SETTINGS_INITIAL_WINDOW_SIZE takes a window past 2^31-1 (RFC 9113 §6.9.2).");
                    }

                    break;
                case Http2SettingsParameter.MaxFrameSize:
                    _output.MaxFrameSize = (int)value;
                    break;
            }
        }

        _output.WriteSettingsAck();
        return Step.Continue;
    }

    private Step OnPing(in Http2Frame frame)
    {
        if (!frame.IsAck)
        {
            _output.WritePingAck(frame.PingData);
        }
        else
        {
            OnPingAck(frame.PingData);
        }

        return Step.Continue;
    }

    private Step OnWindowUpdate(in Http2Frame frame)
    {
        if (frame.StreamId > _lastStreamId)
        {
            return GoAway(Http2ErrorCode.ProtocolError, "WINDOW_UPDATE on an idle stream (RFC 9113 §5.1).");
        }

        if (!_output.OnWindowUpdate(frame.StreamId, frame.WindowIncrement))
        {
            if (frame.StreamId == 0)
            {
                return GoAway(Http2ErrorCode.FlowControlError, "The connection's window past 2^31-1 (RFC 9113 §6.9.1).");
            }

            ResetStream(frame.StreamId, Http2ErrorCode.FlowControlError);
        }

        return Step.Continue;
    }

    private Step OnRstStream(in Http2Frame frame)
    {
        if (frame.StreamId > _lastStreamId)
        {
            return GoAway(Http2ErrorCode.ProtocolError, "RST_STREAM on an idle stream (RFC 9113 §6.4).");
        }

        _output.DropOwed(frame.StreamId);
        RememberReset(frame.StreamId, byPeer: true);
        OnStreamReset(frame.StreamId);
        return Step.Continue;
    }

    /// <summary>Ends the connection with a GOAWAY naming the last stream processed (§6.8) and why.</summary>
    private Step GoAway(Http2ErrorCode code, string reason)
    {
        // §6.8: after the final GOAWAY the last stream named never grows, though ignored streams still advance _lastStreamId.
        _output.WriteGoAway(Math.Min(_lastStreamId, _goAwayLastStreamId), code, Encoding.ASCII.GetBytes(reason));
        if (code != Http2ErrorCode.NoError)
        {
            LogConnectionError(_logger, code, reason);
        }

        return Step.Close;
    }

    [LoggerMessage(EventId = 20, Level = LogLevel.Debug, Message = "HTTP/2 connection ended by the peer: {Reason}")]
    private static partial void LogConnectionFault(ILogger logger, string reason);

    [LoggerMessage(EventId = 21, Level = LogLevel.Debug, Message = "HTTP/2 connection error {Code}: {Reason}")]
    private static partial void LogConnectionError(ILogger logger, Http2ErrorCode code, string reason);

    [LoggerMessage(EventId = 22, Level = LogLevel.Error, Message = "Unhandled application error in an HTTP/2 request")]
    private static partial void LogApplicationError(ILogger logger, Exception exception);
}
