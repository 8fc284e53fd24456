using System.IO.Pipelines;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// Streams answered concurrently (RFC 9113 §5): a request is dispatched as its header block ends; a handler that
/// completes synchronously is answered in the read that brought it, one that does not becomes an
/// <see cref="Http2Stream"/> and answers when it completes, from its own thread, while the loop goes on reading. Every
/// response is encoded and written under the connection's lock at the moment it is written, so HPACK blocks leave in
/// the order the encoder's dynamic table saw them; frames of different streams interleave only whole.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The semaphore is only awaited (WaitAsync): it never makes the wait handle that would need disposing.")]
internal sealed partial class Http2Connection<TApp> : IHttp2StreamHost
{
    // The streams whose handler runs or whose content still arrives.
    private readonly Dictionary<int, Http2Stream> _streams = [];

    // Responses not lent to a stream: one serves every synchronous answer; a stream answering later takes one of its own.
    private readonly Stack<Http2Response> _responses = new();

    // One flush at a time: the loop flushes after each read, a handler that completes on its own after its answer.
    private readonly SemaphoreSlim _flushGate = new(1, 1);

    // The loop is handling a read: whatever is written meanwhile goes with the flush that ends it.
    private bool _inLoop;
    private bool _flushQueued;

    public Lock Sync => _output.Sync;

    // The streams answered whole and kept only until the client ends its request (half-closed, local): no work of ours.
    private int _answeredStreams;

    /// <summary>The streams that count toward SETTINGS_MAX_CONCURRENT_STREAMS: open, or still owing response bytes.</summary>
    private int OpenStreamCount => _streams.Count + _output.OwingStreamCount;

    /// <summary>
    /// Whether a stream still has work of this side's: a handler running, content for one, or response bytes owed. A
    /// stream answered whole that the client leaves open does not keep the connection from idling or draining.
    /// </summary>
    private bool HasWork => OpenStreamCount > _answeredStreams || _output.OwedBytes > 0;

    /// <summary>Hands a request whose header block has ended to its handler.</summary>
    private Step Dispatch(int streamId)
    {
        _idle = false;
        ref readonly RequestHead head = ref _builder.Head;
        if (!_responses.TryPop(out Http2Response? response))
        {
            response = new Http2Response(_output, _date);
        }

        response.Reset(streamId, head.Method == HttpMethod.Head);
        if (!_headersEndStream)
        {
            return DispatchWithContent(streamId, response);
        }

        ValueTask pending = Invoke(in head, RequestBody.Empty, response);
        if (pending.IsCompletedSuccessfully)
        {
            if (!response.HasWritten)
            {
                response.WriteText(HttpStatus.InternalServerError, "The request was not answered.\n"u8);
            }

            _responses.Push(response);
            return Step.Continue;
        }

        var stream = new Http2Stream(this, streamId, response, requestEnded: true, contentLength: -1, maxBodySize: 0);
        AddStream(stream);
        _ = CompleteStreamAsync(stream, pending);
        return Step.Continue;
    }

    /// <summary>Runs the handler; what it throws before it returns a task is its task's fault.</summary>
    private ValueTask Invoke(ref readonly RequestHead head, RequestBody body, Http2Response response)
    {
        try
        {
            return _app.ProcessRequest(new HttpRequest(_builder.HeadBytes, in head, body, _context), response);
        }
        catch (Exception ex)
        {
            return ValueTask.FromException(ex);
        }
    }

    /// <summary>Waits for a handler that did not complete when dispatched, then ends its stream.</summary>
    private async Task CompleteStreamAsync(Http2Stream stream, ValueTask pending)
    {
        Exception? fault = null;
        try
        {
            await pending;
        }
        catch (Exception ex)
        {
            fault = ex;
        }

        bool flush;
        lock (Sync)
        {
            EndHandler(stream, fault);
            flush = QueueFlush();
            if (_output.OwedBytes > 0 && !_stallArmed)
            {
                // Its bytes wait for a window outside the loop's reads: the stall deadline starts now, and the loop's
                // read is woken so that its timer takes the deadline in.
                ArmStallTimer();
                _input.CancelPendingRead();
            }

            if (!HasWork && !_output.IsClosed)
            {
                // The loop may be waiting for input with a deadline that now changes (idle, or a shutdown now drained).
                _input.CancelPendingRead();
            }
        }

        if (flush)
        {
            await FlushInBackgroundAsync();
        }
    }

    /// <summary>
    /// The handler of <paramref name="stream"/> has completed: an answer if it wrote none, and, if the client is still
    /// sending content no one will read, RST_STREAM NO_ERROR once the answer is out (§8.1).
    /// </summary>
    private void EndHandler(Http2Stream stream, Exception? fault)
    {
        stream.HandlerDone = true;
        Http2Response response = stream.Response;
        if (_output.IsClosed)
        {
            stream.ReleaseContent();
            response.ReleaseBodyBuffer();
            RemoveStream(stream);
            return;
        }

        if (fault is not null && stream.Rejection == RequestRejection.None && !stream.IsReset)
        {
            // The engine's own I/O never runs inside a handler: this is the application's.
            LogApplicationError(_logger, fault);
        }

        if (!response.HasWritten && !stream.IsReset)
        {
            if (stream.Rejection != RequestRejection.None)
            {
                response.WriteText(stream.Rejection.ToStatus(), stream.Rejection.ToReason());
            }
            else
            {
                response.WriteText(HttpStatus.InternalServerError, fault is null ? "The request was not answered.\n"u8 : "Internal server error.\n"u8);
            }
        }

        int dropped = stream.ReleaseContent();
        if (stream.RequestEnded || stream.IsReset)
        {
            GiveBack(dropped);
            RemoveStream(stream);
        }
        else if (dropped > 0 && !_output.IsOwing(stream.Id))
        {
            // §8.1: answered whole while content comes that no one will read: NO_ERROR asks the client to stop sending.
            GiveBack(dropped);
            ResetStream(stream.Id, Http2ErrorCode.NoError);
        }
        else
        {
            // Half-closed (local), §5.1: the stream is kept until the client ends or resets it, so its windows and frames
            // are still followed; what it sends is dropped as it comes (OnData), the windows opened for it.
            stream.Unacknowledged += dropped;
            Credit(stream, dropped);
            KeepAnswered(stream);
        }

        _responses.Push(response);
    }

    /// <summary>The stream enters the table: it counts as open, and its send window is followed from now on.</summary>
    private void AddStream(Http2Stream stream)
    {
        _streams.Add(stream.Id, stream);
        _output.KeepStream(stream.Id);
    }

    /// <summary>The stream is answered whole and kept only until the client ends or resets it (half-closed, local).</summary>
    private void KeepAnswered(Http2Stream stream)
    {
        stream.IsAnswered = true;
        _answeredStreams++;
    }

    private void RemoveStream(Http2Stream stream)
    {
        _answeredStreams -= stream.IsAnswered ? 1 : 0;
        _streams.Remove(stream.Id);
        _output.ForgetStream(stream.Id);
    }

    /// <summary>Resets a stream (§5.4.2): what it owed is dropped, its handler's reads fail, its later frames are ignored.</summary>
    private void ResetStream(int streamId, Http2ErrorCode code)
    {
        _output.WriteRstStream(streamId, code);
        RememberReset(streamId, byPeer: false);
        OnStreamReset(streamId);
    }

    /// <summary>The stream was reset, by either side: its content is dropped and its handler's reads fail.</summary>
    private void OnStreamReset(int streamId)
    {
        if (_streams.TryGetValue(streamId, out Http2Stream? stream))
        {
            stream.Abort();
            GiveBack(stream.ReleaseContent());
            if (stream.HandlerDone)
            {
                RemoveStream(stream);
            }
        }
    }

    /// <summary>Whether a flush is to be started for what was written outside the loop; under the lock.</summary>
    private bool QueueFlush()
    {
        if (_inLoop || _flushQueued || !_output.HasOutput || _output.IsClosed)
        {
            return false;
        }

        _flushQueued = true;
        return true;
    }

    private async Task FlushInBackgroundAsync()
    {
        try
        {
            await FlushAsync();
        }
        catch (Exception ex)
        {
            // The transport failed: the loop's next read ends the connection.
            LogConnectionFault(_logger, ex.Message);
        }
    }

    /// <summary>Sends what was written; false when the transport will take no more.</summary>
    private async ValueTask<bool> FlushAsync()
    {
        await _flushGate.WaitAsync();
        try
        {
            ValueTask<FlushResult> flush;
            lock (Sync)
            {
                _flushQueued = false;
                if (_output.IsClosed || _flushTimedOut || !_output.HasOutput)
                {
                    // After a flush that waited too long, nothing more is flushed: it would wait the same way.
                    return !_output.IsClosed && !_flushTimedOut;
                }

                _output.HasOutput = false;
                flush = _transportOutput.FlushAsync();
                if (flush.IsCompletedSuccessfully)
                {
                    FlushResult done = flush.Result;
                    return !done.IsCompleted && !done.IsCanceled;
                }

                // Handlers may write while it waits: their frames are held aside until it ends (Http2Output.EndFlush).
                _output.BeginFlush();
                _flushWaitingSince = Time.GetTimestamp();
            }

            FlushResult result;
            try
            {
                result = await WaitForFlushAsync(flush);
            }
            finally
            {
                lock (Sync)
                {
                    _output.EndFlush();
                }
            }

            return !result.IsCompleted && !result.IsCanceled;
        }
        finally
        {
            _flushGate.Release();
        }
    }

    /// <summary>
    /// Ends the connection: streams still running are aborted (their reads fail, their answers are dropped), and the
    /// pipes complete once no flush is under way.
    /// </summary>
    private async Task CloseAsync()
    {
        lock (Sync)
        {
            _output.IsClosed = true;
            foreach (Http2Stream stream in _streams.Values)
            {
                stream.Abort();
                stream.ReleaseContent();
            }

            _output.Release();
            _response.ReleaseBodyBuffer();
            while (_responses.TryPop(out Http2Response? response))
            {
                response.ReleaseBodyBuffer();
            }
        }

        await _flushGate.WaitAsync();
        try
        {
            lock (Sync)
            {
                // Only now: a flush that waits is bounded by the timer until it ends.
                _timer?.Dispose();
                _timer = null;
            }

            await _input.CompleteAsync();

            // After a flush that never completed, nothing more is sent (TLS's close_notify would wait the same way).
            await _transportOutput.CompleteAsync(_flushTimedOut ? new TimeoutException("The client stopped reading.") : null);
        }
        finally
        {
            _flushGate.Release();
        }
    }
}
