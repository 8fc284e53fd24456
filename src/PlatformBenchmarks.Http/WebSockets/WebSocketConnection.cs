using System.Buffers;
using System.IO.Pipelines;
using System.Net.WebSockets;
using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>
/// The WebSocket codec of one connection (RFC 6455 §5-§7), after HTTP/1.1 has answered the handshake with 101. It runs
/// on the connection's own loop and input: the bytes the client sent behind the handshake are its first. Like HTTP/1.1
/// it answers every complete frame of a read and flushes once per read. A small frame that arrived whole is unmasked in
/// the receive buffer and handed over there, so an echo costs no copy but the send and no allocation
/// (docs/decisions/0019-websocket.md).
/// </summary>
internal sealed partial class WebSocketConnection
{
    private enum Step : byte
    {
        /// <summary>The read in hand ends inside a frame's header, or a control frame: wait for more.</summary>
        NeedMore,

        /// <summary>A frame or a piece of one was used; a handler may have been called (its task in hand).</summary>
        Continue,

        /// <summary>The closing handshake is complete: the server closes the TCP connection (§7.1.1).</summary>
        Closed,
    }

    private static readonly TimerCallback s_onTimer = static state => ((WebSocketConnection)state!).OnTimer();

    private readonly HttpConnectionInput _input;
    private readonly PipeWriter _output;
    private readonly IWebSocketHandler _handler;
    private readonly WebSocketSession _session;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly bool _streams;
    private readonly long _maxMessageSize;
    private readonly TimeSpan _idleTimeout;
    private readonly TimeSpan _closeTimeout;

    // The data frame whose payload is being received, when its header came in an earlier piece than all of its payload.
    private bool _inFrame;
    private bool _frameFin;
    private long _frameRemaining;
    private uint _maskKey;

    // The message being received: its type, its length so far, its text so far checked; and, for a handler that takes
    // messages whole, the pooled array it is gathered in.
    private bool _inMessage;
    private WebSocketMessageType _messageType;
    private long _messageLength;
    private Utf8Validator _utf8;
    private byte[]? _gathered;

    // Once the server has sent its close frame, frames are parsed only to find the client's (§7.1.2); a stream that
    // cannot be parsed any further is dropped until the client closes or time is up.
    private bool _closing;
    private bool _discardAll;
    // The client closed first: its status, which the server's reply carries too.
    private WebSocketCloseStatus _receivedStatus = WebSocketCloseStatus.Empty;
    private bool _receivedClose;

    // The timer fires when the client has been silent for the idle timeout, or, once closing, when the close has taken
    // its time: the reads themselves carry no token, so a busy connection never touches the timer.
    private readonly Lock _timerLock = new();
    private ITimer? _timer;
    private long _lastRead;
    private long _closingStart;
    private bool _closeExpired;
    private bool _ended;

    public WebSocketConnection(HttpConnectionInput input, PipeWriter output, IWebSocketHandler handler, HttpConnectionContext context, ILogger logger)
    {
        _input = input;
        _output = output;
        _handler = handler;
        _session = new WebSocketSession(output, context);
        _time = context.Time;
        _logger = logger;
        _streams = handler.StreamsMessages;
        _maxMessageSize = context.Limits.MaxWebSocketMessageSize;
        _idleTimeout = context.Limits.WebSocketIdleTimeout;
        _closeTimeout = context.Limits.MaxLingerTime;
    }

    /// <summary>
    /// Runs the connection until it ends; the read in hand, if any, holds the bytes behind the handshake.
    /// <paramref name="stopping"/>: the host is stopping already, so the server closes at once (1001).
    /// </summary>
    public async Task RunAsync(bool stopping)
    {
        _lastRead = _time.GetTimestamp();
        _timer = _time.CreateTimer(s_onTimer, this, _idleTimeout, Timeout.InfiniteTimeSpan);
        try
        {
            if (stopping)
            {
                Fail(WebSocketCloseStatus.EndpointUnavailable, "the server is stopping");
            }

            bool inHand = _input.HoldsRead;
            while (true)
            {
                if (!inHand)
                {
                    ReadResult result = await _input.ReadAsync(default);
                    _input.Take(in result);
                    _lastRead = _time.GetTimestamp();
                    if (result.IsCanceled && OnCanceledRead())
                    {
                        return;
                    }
                }

                inHand = false;
                ReadOnlySequence<byte> buffer = _input.Unread;
                Step step;
                while ((step = ProcessNext(ref buffer, out ValueTask pending)) == Step.Continue)
                {
                    if (!pending.IsCompletedSuccessfully)
                    {
                        await CompleteAsync(pending);
                    }

                    AfterHandler();
                }

                _input.Unread = buffer;
                _input.Release();
                if (_session.HasOutput)
                {
                    _session.HasOutput = false;
                    FlushResult flush = await _output.FlushAsync();
                    if (flush.IsCompleted || flush.IsCanceled)
                    {
                        return;
                    }
                }

                // The client's close ends it (§7.1.1: the server closes TCP first); so does the end of its stream, and a
                // close that may not wait at all.
                if (step == Step.Closed || _input.IsCompleted || (_closing && _closeTimeout == TimeSpan.Zero))
                {
                    return;
                }
            }
        }
        finally
        {
            lock (_timerLock)
            {
                _ended = true;
                _timer.Dispose();
            }

            ReturnGathered();
            WebSocketCloseStatus status = _receivedClose ? _receivedStatus : _session.CloseSent ? _session.SentStatus : WebSocketCloseStatus.Empty;
            try
            {
                _handler.OnClosed(_session, status);
            }
            catch (Exception ex)
            {
                LogHandlerFault(_logger, ex);
            }
        }
    }

    /// <summary>A read came back canceled: the idle timeout, the close's time, or the host stopping. Returns whether to end now.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool OnCanceledRead()
    {
        if (_closing)
        {
            // Only the close's own time ends a close: the host stopping meanwhile changes nothing.
            return _closeExpired;
        }

        // RFC 6455 §7.4.1: 1001, the server is going away (an idle connection, or the host stopping).
        Fail(WebSocketCloseStatus.EndpointUnavailable, "idle, or the server is stopping");
        return false;
    }

    private async ValueTask CompleteAsync(ValueTask pending)
    {
        try
        {
            await pending;
        }
        catch (Exception ex)
        {
            OnHandlerFault(ex);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void OnHandlerFault(Exception ex)
    {
        LogHandlerFault(_logger, ex);
        if (!_session.CloseSent)
        {
            // §7.4.1: 1011, the server met a condition that kept it from fulfilling the request.
            Fail(WebSocketCloseStatus.InternalServerError, "the handler failed");
        }
    }

    /// <summary>After a handler's call: a gathered message is given back, and a close the handler sent starts the closing.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AfterHandler()
    {
        if (_gathered is not null && !_inMessage)
        {
            ReturnGathered();
        }

        if (_session.CloseSent && !_closing)
        {
            EnterClosing();
        }
    }

    /// <summary>
    /// Fails the connection (§7.1.7): a close frame with <paramref name="status"/>, then only the client's close is looked
    /// for. The frame in hand, if any, is skipped by its length.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Fail(WebSocketCloseStatus status, string reason)
    {
        LogFailed(_logger, (int)status, reason);
        if (!_session.CloseSent)
        {
            _session.WriteClose(status, default);
        }

        EnterClosing();
    }

    private void EnterClosing()
    {
        _closing = true;
        _inMessage = false;
        lock (_timerLock)
        {
            _closingStart = _time.GetTimestamp();
            if (_closeTimeout > TimeSpan.Zero)
            {
                _timer!.Change(_closeTimeout, Timeout.InfiniteTimeSpan);
            }
        }
    }

    private void OnTimer()
    {
        lock (_timerLock)
        {
            if (_ended)
            {
                return;
            }

            TimeSpan limit = _closing ? _closeTimeout : _idleTimeout;
            long since = _closing ? _closingStart : Volatile.Read(ref _lastRead);
            TimeSpan left = limit - _time.GetElapsedTime(since);
            if (left > TimeSpan.Zero)
            {
                // Bytes came since the timer was set: it waits for the rest of the silence the limit allows.
                _timer!.Change(left, Timeout.InfiniteTimeSpan);
                return;
            }

            _closeExpired = _closing;
        }

        _input.Reader.CancelPendingRead();
    }

    private void ReturnGathered()
    {
        if (_gathered is not null)
        {
            ArrayPool<byte>.Shared.Return(_gathered);
            _gathered = null;
        }
    }

    [LoggerMessage(EventId = 20, Level = LogLevel.Debug, Message = "WebSocket closed with {Status}: {Reason}")]
    private static partial void LogFailed(ILogger logger, int status, string reason);

    [LoggerMessage(EventId = 21, Level = LogLevel.Error, Message = "Unhandled WebSocket handler error")]
    private static partial void LogHandlerFault(ILogger logger, Exception exception);
}
