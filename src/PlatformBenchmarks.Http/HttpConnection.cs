using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;
using PlatformBenchmarks.Http.WebSockets;

namespace PlatformBenchmarks.Http;

/// <summary>
/// One HTTP/1.1 connection: reads from the transport, answers every complete request in a read in order, and
/// flushes once per read. Generic over the application struct so requests reach it without an interface call.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The connection's lifetime is ExecuteAsync, which disposes its timer in a finally.")]
internal sealed partial class HttpConnection<TApp> : IRequestBodyHost
    where TApp : struct, IHttpApplication
{
    private enum Step : byte
    {
        Dispatched,
        DispatchedWithBody,
        NeedMore,
        Close,
    }

    /// <summary>Where the connection is, as far as its input goes.</summary>
    private enum State : byte
    {
        /// <summary>Between requests, or inside a head: the input holds the next request's bytes, if any.</summary>
        ReadingHead,

        /// <summary>A request with a body is with its handler, which may read the input through <see cref="RequestBody"/>.</summary>
        InBody,

        /// <summary>A request is answered but its body is still arriving: the engine discards it before the next request.</summary>
        DrainingBody,

        /// <summary>The connection is closing and reads only to drop what the client still sends.</summary>
        Lingering,
    }

    private readonly HttpConnectionInput _input;
    private readonly PipeWriter _output;
    private readonly HttpParser _parser;
    private readonly Http1Response _response;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly bool _transportHalfCloses;
    private readonly CancellationToken _closeRequested;
    private readonly HttpConnectionContext _context;
    private TApp _app;

    // The body of the request being answered, and, once it is answered, whether what its handler left unread is
    // still arriving: the engine discards it before the next request.
    private readonly RequestBody _requestBody;
    private State _state;

    private readonly HttpConnectionClock _clock;
    private bool _hasOutput;

    // The method and path of the request being answered, copied for the log only when its handler did not complete
    // at once: by the time it fails, the head it came in may be gone.
    private byte[]? _route;
    private int _routeMethodLength;
    private int _routeLength;

    /// <param name="transportHalfCloses">The transport sends a FIN when the output completes and keeps the input readable.</param>
    /// <param name="closeRequested">Signalled when the host stops: an idle connection closes at once, a request in flight is answered first.</param>
    /// <param name="loop">The transport loop the connection runs on, which its handlers find in <see cref="HttpRequest.Connection"/>.</param>
    public HttpConnection(TApp app, IDuplexPipe transport, HttpServerContext context, bool transportHalfCloses = false, ConnectionLoop loop = default, CancellationToken closeRequested = default)
    {
        _context = new HttpConnectionContext(context, loop);
        _transportHalfCloses = transportHalfCloses;
        _closeRequested = closeRequested;
        _app = app;
        _input = new HttpConnectionInput(transport.Input);
        _output = transport.Output;
        _parser = new HttpParser(context.Limits, context.HeadBuffers);
        _response = new Http1Response(_output, context.Date);
        _clock = new HttpConnectionClock(context.Time, context.Limits);
        _requestBody = new RequestBody(_input, _response, this, context.Limits, _clock);
        _logger = context.Logger;
        _time = context.Time;
    }

    public async Task ExecuteAsync()
    {
        // The host is stopping: a read waiting for the next request returns at once (canceled) and the connection
        // closes; one that comes after a request in flight returns canceled once that request is answered.
        using CancellationTokenRegistration closing = _closeRequested.UnsafeRegister(static s => ((PipeReader)s!).CancelPendingRead(), _input.Reader);
        try
        {
            await ProcessRequestsAsync();
        }
        catch (Exception ex) when (IsConnectionFault(ex))
        {
            // Handlers' exceptions never get here (see CompleteAsync): this is the engine's own read or flush, the peer
            // reset or vanished. Nothing to answer, nothing to log above Debug.
            LogConnectionFault(_logger, ex.Message);
        }
        finally
        {
            _clock.Dispose();
            _parser.Reset();
            _response.ReleaseBodyBuffer();
            await _input.Reader.CompleteAsync();
            await _output.CompleteAsync();
        }
    }

    private async Task ProcessRequestsAsync()
    {
        // What the read waits for, on the clock: nothing (an idle connection), the rest of a head, or a body to discard.
        CancellationToken timeout = default;
        while (true)
        {
            long arrived;
            try
            {
                arrived = _input.Take(await _input.ReadAsync(timeout));
            }
            catch (OperationCanceledException) when (timeout.IsCancellationRequested)
            {
                // A body being discarded belongs to a request already answered: it gets no second answer.
                if (_state != State.DrainingBody)
                {
                    Reject(RequestRejection.Timeout);
                }

                await FlushAndLingerAsync();
                return;
            }

            if (timeout.CanBeCanceled)
            {
                _clock.EndWait(arrived);
            }

            // The requests of this read are parsed from a local copy; the input gets it back when a handler may read it.
            ReadOnlySequence<byte> buffer = _input.Unread;
            bool keepOpen = true;
            bool linger = false;
            bool upgraded = false;
            while (true)
            {
                Step step = ProcessNext(ref buffer, out ValueTask pending);
                if (step == Step.NeedMore)
                {
                    break;
                }

                if (step == Step.Close)
                {
                    // Rejected: whatever the client meant to send next (a refused body, say) may still be on its way.
                    keepOpen = false;
                    linger = true;
                    break;
                }

                if (step == Step.DispatchedWithBody)
                {
                    // The handler may have read its body from the input: the read in hand may be a newer one.
                    BodyOutcome outcome = await CompleteWithBodyAsync(pending);
                    if (outcome == BodyOutcome.ConnectionEnded)
                    {
                        return;
                    }

                    buffer = _input.Unread;
                    if (outcome == BodyOutcome.Close)
                    {
                        keepOpen = false;
                        linger = true;
                        break;
                    }
                }
                else if (!pending.IsCompletedSuccessfully)
                {
                    await CompleteAsync(pending);
                }

                if (!_response.HasWritten)
                {
                    _response.WriteErrorAndClose(HttpStatus.InternalServerError, "The request was not answered.\n"u8);
                }

                if (!_response.KeepAlive)
                {
                    if (_response.WebSocketHandler is not null)
                    {
                        // The handshake was accepted: whatever follows it is the WebSocket's.
                        upgraded = true;
                        break;
                    }

                    // Bytes behind the last answered request, or a body still arriving, show the client is still
                    // sending; otherwise close at once (an HTTP/1.0 or Connection: close client that sent one request
                    // is not kept waiting).
                    keepOpen = false;
                    linger = !buffer.IsEmpty || _state == State.DrainingBody;
                    break;
                }
            }

            // Everything before buffer.Start is answered; the rest is a request still arriving.
            _input.Unread = buffer;
            if (upgraded)
            {
                await RunWebSocketAsync();
                return;
            }

            _input.Release();
            _parser.ReleaseScratch();

            if (_hasOutput)
            {
                _hasOutput = false;
                FlushResult flush = await _output.FlushAsync();
                if (flush.IsCompleted || flush.IsCanceled)
                {
                    return;
                }
            }

            if (!keepOpen || _input.IsCompleted || _input.IsCanceled)
            {
                // A peer that stopped sending mid-request gets no answer: there is nothing complete to answer.
                if (linger && !_input.IsCompleted && !_input.IsCanceled)
                {
                    await LingeringCloseAsync();
                }

                return;
            }

            // The wait for the rest of a request is bounded; the wait between requests is not: RFC 9112 §9.5 leaves
            // idle connections to the server, and TFB forbids a keep-alive limit.
            timeout = _state == State.DrainingBody ? _clock.WaitForBody() : buffer.IsEmpty ? default : _clock.WaitForHead();
        }
    }

    /// <summary>
    /// The connection switches to WebSocket (RFC 6455 §4.2.2) on the same loop and input: the 101 is sent, and the
    /// codec starts with the bytes the client sent behind the handshake, still in hand.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private async Task RunWebSocketAsync()
    {
        _parser.ReleaseScratch();
        _hasOutput = false;
        FlushResult flush = await _output.FlushAsync();
        if (flush.IsCompleted || flush.IsCanceled)
        {
            return;
        }

        var codec = new WebSocketConnection(_input, _output, _response.WebSocketHandler!, _context, _logger);
        await codec.RunAsync(stopping: _input.IsCanceled);
    }

    /// <summary>Parses and answers the next request in <paramref name="buffer"/>, slicing off what it used.</summary>
    private Step ProcessNext(ref ReadOnlySequence<byte> buffer, out ValueTask pending)
    {
        pending = default;
        RequestRejection rejection;
        if (_state == State.DrainingBody)
        {
            Step discarded = DiscardBody(ref buffer);
            if (discarded != Step.Dispatched)
            {
                return discarded;
            }
        }

        if (buffer.IsEmpty)
        {
            return Step.NeedMore;
        }

        // Pipelined requests whole in the first segment, each answered at once and keeping the connection, are parsed
        // and answered from one span, the buffer sliced once after them: what the loop above would do for each, without
        // a slice of the sequence and a return to it per request. Anything else goes back to it as one step
        // (docs/decisions/0008-measured-code-choices.md).
        ReadOnlySpan<byte> first = buffer.FirstSpan;
        int answered = 0;
        RequestHead head;
        ReadOnlySpan<byte> headBytes;
        while (true)
        {
            ReadOnlySpan<byte> rest = first.Slice(answered);
            int length = _parser.ParseInFirstSegment(rest, out head);
            if (length == 0)
            {
                break;
            }

            headBytes = rest.Slice(0, length);
            answered += length;
            _clock.HeadCompleted();
            if (head.BodyKind != BodyKind.None)
            {
                buffer = buffer.Slice(answered);
                return DispatchWithBody(headBytes, in head, buffer, out pending);
            }

            _ = Dispatch(headBytes, in head, out pending);
            if (answered == first.Length || !pending.IsCompletedSuccessfully || !_response.HasWritten || !_response.KeepAlive)
            {
                buffer = buffer.Slice(answered);
                return Step.Dispatched;
            }
        }

        // A head that does not end in the first segment, starts with empty lines, or is rejected: the parse goes on
        // from where ParseInFirstSegment stopped.
        if (answered > 0)
        {
            buffer = buffer.Slice(answered);
        }

        ParseStatus status = _parser.ParseAfterFirstSegment(buffer, ref head, out headBytes, out int consumed, out rejection);
        if (status != ParseStatus.Complete)
        {
            buffer = buffer.Slice(consumed);
            return status == ParseStatus.Incomplete ? Step.NeedMore : Reject(rejection);
        }

        buffer = buffer.Slice(consumed);
        _clock.HeadCompleted();
        if (head.BodyKind != BodyKind.None)
        {
            return DispatchWithBody(headBytes, in head, buffer, out pending);
        }

        return Dispatch(headBytes, in head, out pending);
    }

    private Step Dispatch(ReadOnlySpan<byte> headBytes, ref readonly RequestHead head, out ValueTask pending)
    {
        _response.Reset(in head);
        _hasOutput = true;
        try
        {
            pending = _app.ProcessRequest(new HttpRequest(headBytes, in head, _requestBody, _context), _response);
        }
        catch (Exception ex)
        {
            pending = ValueTask.FromException(ex);
        }

        if (!pending.IsCompletedSuccessfully && head.BodyKind == BodyKind.None)
        {
            // Without a body nothing has moved the input, so the head is still there to copy from.
            RememberRoute(headBytes, in head);
        }

        return Step.Dispatched;
    }

    private async ValueTask CompleteAsync(ValueTask pending)
    {
        try
        {
            await pending;
        }
        catch (Exception ex)
        {
            // Whatever its type: the engine's own I/O never runs inside a handler, so this is the application's.
            OnApplicationFault(ex);
        }
    }

    /// <summary>
    /// A handler failed: its request gets 500 unless it was answered already (a response is written whole), the rest of
    /// the connection goes on, and the failure is logged with the request's method and path.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void OnApplicationFault(Exception ex)
    {
        LogApplicationError(
            _logger,
            System.Text.Encoding.ASCII.GetString(_route.AsSpan(0, _routeMethodLength)),
            System.Text.Encoding.ASCII.GetString(_route.AsSpan(_routeMethodLength, _routeLength - _routeMethodLength)),
            ex);
        if (!_response.HasWritten)
        {
            _response.WriteText(HttpStatus.InternalServerError, "Internal server error.\n"u8);
        }
    }

    /// <summary>Copies the method and path of the request being answered, each cut to a bounded length, for the log.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void RememberRoute(ReadOnlySpan<byte> headBytes, ref readonly RequestHead head)
    {
        const int MaxMethod = 32;
        const int MaxPath = 224;
        _route ??= new byte[MaxMethod + MaxPath];
        ReadOnlySpan<byte> method = headBytes.Slice(0, head.MethodLength);
        ReadOnlySpan<byte> path = headBytes.Slice(head.PathStart, head.PathLength);
        method = method[..Math.Min(method.Length, MaxMethod)];
        path = path[..Math.Min(path.Length, MaxPath)];
        method.CopyTo(_route);
        path.CopyTo(_route.AsSpan(method.Length));
        _routeMethodLength = method.Length;
        _routeLength = method.Length + path.Length;
    }

    private Step Reject(RequestRejection rejection)
    {
        _response.ResetForRejection();
        _response.WriteErrorAndClose(rejection.ToStatus(), rejection.ToReason());
        _hasOutput = true;
        LogRejected(_logger, rejection);
        return Step.Close;
    }

    /// <summary>Sends what is written, then ends the connection with a lingering close unless the client is gone.</summary>
    private async Task FlushAndLingerAsync()
    {
        _hasOutput = false;
        FlushResult flush = await _output.FlushAsync();
        if (!flush.IsCompleted && !flush.IsCanceled)
        {
            await LingeringCloseAsync();
        }
    }

    /// <summary>
    /// The graceful end of a connection the server chose to close while the client may still be sending. Closing a
    /// socket with bytes unread, or receiving bytes after closing it, makes the kernel answer with a reset, and a client
    /// that gets the reset before reading (one still uploading a body we refused) loses the response we sent. So the
    /// response stays flushed and the input is read and discarded until the client closes, has been silent for
    /// <see cref="HttpLimits.LingerTimeout"/>, or <see cref="HttpLimits.MaxLingerTime"/> has passed.
    /// RFC 9112 §9.6 orders it: the last response, then the FIN (half-close), then reading until the client closes.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private async Task LingeringCloseAsync()
    {
        _state = State.Lingering;
        if (_transportHalfCloses)
        {
            // The transport sends what is queued, then the FIN at once, and keeps the input readable.
            await _output.CompleteAsync();
        }

        // Otherwise (Kestrel's socket transport) the output stays open until the linger ends: completing it there
        // shuts both directions and disposes the socket, so the bytes the client is still sending would meet a reset.
        await LingerAsync();
    }

    /// <summary>Reads and discards the input until the client closes, is silent for the linger timeout, or the maximum passes.</summary>
    private async Task LingerAsync()
    {
        HttpLimits limits = _parser.Limits;
        long start = _time.GetTimestamp();
        using var silence = new CancellationTokenSource(Timeout.InfiniteTimeSpan, _time);
        while (true)
        {
            TimeSpan left = limits.MaxLingerTime - _time.GetElapsedTime(start);
            if (left <= TimeSpan.Zero)
            {
                return;
            }

            silence.CancelAfter(left < limits.LingerTimeout ? left : limits.LingerTimeout);
            try
            {
                _input.Take(await _input.ReadAsync(silence.Token));
            }
            catch (OperationCanceledException)
            {
                return;
            }

            _input.ReleaseAll();
            if (_input.IsCompleted || _input.IsCanceled)
            {
                return;
            }
        }
    }

    private static bool IsConnectionFault(Exception ex) =>
        ex is IOException or System.Net.Sockets.SocketException or ObjectDisposedException
        || ex is Microsoft.AspNetCore.Connections.ConnectionResetException or Microsoft.AspNetCore.Connections.ConnectionAbortedException;

    [LoggerMessage(EventId = 1, Level = LogLevel.Debug, Message = "Connection ended by the peer: {Reason}")]
    private static partial void LogConnectionFault(ILogger logger, string reason);

    [LoggerMessage(EventId = 2, Level = LogLevel.Debug, Message = "Request rejected: {Reason}")]
    private static partial void LogRejected(ILogger logger, RequestRejection reason);

    [LoggerMessage(EventId = 3, Level = LogLevel.Error, Message = "Unhandled application error in {Method} {Path}")]
    private static partial void LogApplicationError(ILogger logger, string method, string path, Exception exception);
}
