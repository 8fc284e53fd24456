using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

/// <summary>
/// Requests with a body: dispatched as soon as the head is parsed, the handler reading the body as it arrives through
/// <see cref="RequestBody"/>; whatever it leaves unread is discarded before the next request (RFC 9112 §6.3).
/// </summary>
internal sealed partial class HttpConnection<TApp>
{
    private enum BodyOutcome : byte
    {
        /// <summary>Go on with the read in hand: the next request, or the rest of this body to discard.</summary>
        Continue,

        /// <summary>The body failed and the connection closes after what is written.</summary>
        Close,

        /// <summary>The connection is over: what could be answered has been sent.</summary>
        ConnectionEnded,
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private Step DispatchWithBody(ReadOnlySpan<byte> headBytes, ref readonly RequestHead head, ReadOnlySequence<byte> body, out ValueTask pending)
    {
        long maxBodySize = _app.MaxRequestBodySize(new HttpRequest(headBytes, in head), _parser.Limits.MaxRequestBodySize);
        if (head.BodyKind == BodyKind.ContentLength && head.ContentLength > maxBodySize)
        {
            pending = default;
            return Reject(RequestRejection.BodyTooLarge);
        }

        // A handler that reads its body moves the input on, and the head with it: the route for the log is copied first.
        RememberRoute(headBytes, in head);
        _clock.BodyStarted();
        _state = State.InBody;
        _input.Unread = body;
        RequestHead dispatched = head;
        if (_requestBody.Start(in head, maxBodySize))
        {
            // Until the handler reads the body, its answer closes the connection (see RequestBody.Start).
            dispatched.KeepAlive = false;
        }

        _ = Dispatch(headBytes, in dispatched, out pending);
        return Step.DispatchedWithBody;
    }

    private async ValueTask<BodyOutcome> CompleteWithBodyAsync(ValueTask pending)
    {
        try
        {
            await pending;
        }
        catch (Exception ex)
        {
            // Once the body has failed, what the handler throws follows from it (its RequestBodyException, or one of
            // its own) and is answered below as the body's failure; otherwise the exception is the application's.
            if (!_requestBody.Failed)
            {
                OnApplicationFault(ex);
            }
        }

        _requestBody.End();
        _state = State.ReadingHead;
        if (_requestBody.ConnectionFault is Exception fault)
        {
            // The transport failed while the body was waited for: nothing more can be sent.
            LogConnectionFault(_logger, fault.Message);
            return BodyOutcome.ConnectionEnded;
        }

        if (_requestBody.Truncated)
        {
            // The client closed its side inside the body: what was answered is sent, and nothing more.
            if (_hasOutput)
            {
                _hasOutput = false;
                await _output.FlushAsync();
            }

            return BodyOutcome.ConnectionEnded;
        }

        RequestRejection rejection = _requestBody.Rejection;
        if (rejection == RequestRejection.None)
        {
            _state = _requestBody.IsComplete ? State.ReadingHead : State.DrainingBody;
            return BodyOutcome.Continue;
        }

        if (!_response.HasWritten)
        {
            Reject(rejection);
        }
        else
        {
            // The handler answered before the body failed: that answer stands, and the connection closes after it
            // because the next request cannot be found (RFC 9112 §9.6).
            LogRejected(_logger, rejection);
        }

        if (_input.HoldsRead)
        {
            return BodyOutcome.Close;
        }

        // The wait for the body timed out: the input has no read in hand to go on from.
        await FlushAndLingerAsync();
        return BodyOutcome.ConnectionEnded;
    }

    /// <summary>
    /// Steps over the part of an answered request's body that its handler did not read. Returns
    /// <see cref="Step.Dispatched"/> once the body has ended and the next request may be parsed.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private Step DiscardBody(ref ReadOnlySequence<byte> buffer)
    {
        ParseStatus status = _requestBody.Skip(buffer, out long used, out RequestRejection rejection);
        buffer = buffer.Slice(used);
        if (status == ParseStatus.Incomplete)
        {
            return Step.NeedMore;
        }

        if (status == ParseStatus.Rejected)
        {
            // Its request has its answer already; the next one cannot be found, so the connection closes.
            LogRejected(_logger, rejection);
            return Step.Close;
        }

        _state = State.ReadingHead;
        return Step.Dispatched;
    }

    // The answer the handler is still to write is output too: the loop's flush after it stays due.
    ValueTask<FlushResult> IRequestBodyHost.FlushAsync() => _output.FlushAsync();
}
