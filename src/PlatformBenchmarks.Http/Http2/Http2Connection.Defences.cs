using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// The connection's defences against a peer that would make it work, or hold memory, without end (RFC 9113 §10.5):
/// each is a bound, and past it the connection ends with the error that says why. The limits, and why each is what it
/// is: docs/decisions/0020-http2.md, "Defences".
/// </summary>
internal sealed partial class Http2Connection<TApp>
{
    /// <summary>Streams the client may reset, or have refused, at once: rapid reset (CVE-2023-44487).</summary>
    internal const int StreamResetBurst = 1000;

    /// <summary>How fast that budget comes back.</summary>
    internal const int StreamResetsPerSecond = 100;

    /// <summary>Frames that carry nothing and end nothing (CVE-2019-9518): zero-length DATA, empty header fragments.</summary>
    internal const int EmptyFrameBurst = 100;

    /// <summary>How fast that budget comes back.</summary>
    internal const int EmptyFramesPerSecond = 10;

    /// <summary>
    /// A WINDOW_UPDATE that opens less than this is tiny: it makes the server send frames of a few bytes each (CVE-2019-9511).
    /// </summary>
    internal const int SmallWindowIncrement = 1024;

    /// <summary>Tiny WINDOW_UPDATE frames the client may send at once.</summary>
    internal const int SmallWindowUpdateBurst = 1000;

    /// <summary>How fast that budget comes back.</summary>
    internal const int SmallWindowUpdatesPerSecond = 100;

    /// <summary>
    /// Frames the server may queue in answer to the client's (SETTINGS and PING acknowledgements, RST_STREAM,
    /// WINDOW_UPDATE) between two flushes: the client's SETTINGS and PING floods (CVE-2019-9512, CVE-2019-9515).
    /// </summary>
    internal const int MaxQueuedControlFrames = 1000;

    /// <summary>
    /// The response bytes held for streams whose windows are closed, past which new streams are refused: a client that
    /// never opens its windows holds at most this, plus the one response that passed it.
    /// </summary>
    internal const long MaxHeldResponseBytes = 4 * 1024 * 1024;

    /// <summary>
    /// How long held response bytes may wait for a window to open with none of them sent: then the streams holding
    /// them are reset (CANCEL), so a window that never opens (CVE-2019-9511) cannot hold memory for ever.
    /// </summary>
    internal static readonly TimeSpan StalledResponseTimeout = TimeSpan.FromSeconds(30);

    /// <summary>
    /// A client stream above this identifier makes the server send GOAWAY NO_ERROR once the read is answered: only a few
    /// identifiers are left below 2^31-1 (RFC 9113 §5.1.1), and the client should move to a new connection.
    /// </summary>
    internal const int StreamIdGoAwayThreshold = int.MaxValue - (2 * MaxConcurrentStreams);

    /// <summary>
    /// How long one flush may wait for the client to take the bytes (CVE-2019-9517: a client that stops reading while it
    /// asks for large responses holds the connection's memory); past it the connection ends. A flush waits for half the
    /// transport's write buffer to drain (32 KiB by default), so a client slower than about 270 bytes a second is cut,
    /// near Kestrel's MinResponseDataRate of 240.
    /// </summary>
    internal static readonly TimeSpan StalledFlushTimeout = TimeSpan.FromMinutes(2);

    private Http2FloodBudget _resetBudget = new(StreamResetBurst, StreamResetsPerSecond);
    private Http2FloodBudget _emptyFrameBudget = new(EmptyFrameBurst, EmptyFramesPerSecond);
    private Http2FloodBudget _smallWindowUpdateBudget = new(SmallWindowUpdateBurst, SmallWindowUpdatesPerSecond);

    // The stall deadline, one of the connection's deadlines (Http2Connection.Lifetime.cs): running while response bytes
    // are held, started again whenever some of them are sent.
    private bool _stallArmed;
    private long _stallArmedAt;
    private long _owedSentAtArm;

    // When the flush under way began to wait, and whether it waited too long: the connection then ends.
    private long _flushWaitingSince;
    private bool _flushTimedOut;

    /// <summary>For tests: the response bytes held now for closed windows.</summary>
    internal long HeldResponseBytes => _output.OwedBytes;

    /// <summary>For tests: the most frames queued in answer to the client's between two flushes.</summary>
    internal int PeakQueuedControlFrames { get; private set; }

    /// <summary>For tests: the bytes the request head buffer has grown to.</summary>
    internal int HeadBufferCapacity => _builder.Capacity;

    /// <summary>
    /// Counts <paramref name="frame"/> against the budgets before it is handled: true when it is one too many, and the
    /// connection ends (GOAWAY ENHANCE_YOUR_CALM written).
    /// </summary>
    private bool IsFlood(in Http2Frame frame, in System.Buffers.ReadOnlySequence<byte> content)
    {
        if (_output.ControlFramesQueued >= MaxQueuedControlFrames)
        {
            // The client asks for answers faster than one read can hold; a client that does not read them at all is
            // stopped by the flush, which waits, so nothing more is read.
            return Calm("Too many frames to answer at once (SETTINGS or PING flood).");
        }

        switch (frame.Type)
        {
            case Http2FrameType.RstStream when !_resetBudget.TrySpend(Time):
                return Calm("Streams reset faster than the server allows (rapid reset, CVE-2023-44487).");
            case Http2FrameType.Data when frame.PayloadLength == 0 && !frame.EndStream:
            case Http2FrameType.Headers or Http2FrameType.Continuation when content.IsEmpty && !frame.EndHeaders:
                return !_emptyFrameBudget.TrySpend(Time) && Calm("Too many empty frames (CVE-2019-9518).");
            case Http2FrameType.WindowUpdate when frame.WindowIncrement < SmallWindowIncrement:
                return !_smallWindowUpdateBudget.TrySpend(Time) && Calm("Too many tiny WINDOW_UPDATE frames.");
            default:
                return false;
        }
    }

    /// <summary>Whether a new stream is refused: too many open, or too many response bytes held for closed windows.</summary>
    private bool MustRefuseStream() =>
        OpenStreamCount >= MaxConcurrentStreams || _output.OwedBytes >= MaxHeldResponseBytes;

    /// <summary>
    /// Refuses a stream (REFUSED_STREAM, §5.1.2: the client may retry it); refused streams count as resets, since a
    /// client that ignores the limits can make the server decode header blocks for streams it never serves.
    /// </summary>
    private Step RefuseStream(int streamId)
    {
        ResetStream(streamId, Http2ErrorCode.RefusedStream);
        return _resetBudget.TrySpend(Time) ? Step.Continue : GoAway(Http2ErrorCode.EnhanceYourCalm, "Too many streams refused (rapid reset, CVE-2023-44487).");
    }

    /// <summary>
    /// Runs once the frames of a read are handled, before the flush: clears the count of queued answers, sends GOAWAY when
    /// stream identifiers run out, and arms the stall timer while response bytes are held.
    /// </summary>
    private Step AfterFrames(Step step)
    {
        PeakQueuedControlFrames = Math.Max(PeakQueuedControlFrames, _output.ControlFramesQueued);
        _output.ControlFramesQueued = 0;
        if (step == Step.Close)
        {
            return step;
        }

        if (_lastStreamId > StreamIdGoAwayThreshold && _headersStreamId == 0 && _shutdown != Shutdown.Final)
        {
            // §5.1.1: identifiers cannot be reused. The final GOAWAY of a graceful end (§6.8) names the last stream, so
            // the client goes on elsewhere while the streams in flight finish; the connection closes once they have.
            SendFinalGoAway("Stream identifiers are running out (RFC 9113 §5.1.1)."u8);
            if (IsDrained)
            {
                return Step.Close;
            }
        }

        if (_output.OwedBytes == 0)
        {
            _stallArmed = false;
        }
        else if (!_stallArmed || _output.OwedBytesSent != _owedSentAtArm)
        {
            ArmStallTimer();
        }

        return step;
    }

    /// <summary>
    /// The stall deadline passed with none of the held bytes sent: the streams holding them are reset (CANCEL), so a
    /// window that never opens cannot hold memory for ever; the connection goes on for the others.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ResetStalledStreams()
    {
        LogStalledResponses(_logger, _output.OwedBytes);
        _stallArmed = false;
        foreach (int streamId in _output.OwingStreams.ToArray())
        {
            ResetStream(streamId, Http2ErrorCode.Cancel);
        }
    }

    /// <summary>Starts the stall deadline from now; the read's timer picks it up before the next read.</summary>
    private void ArmStallTimer()
    {
        _stallArmed = true;
        _stallArmedAt = Time.GetTimestamp();
        _owedSentAtArm = _output.OwedBytesSent;
    }

    /// <summary>
    /// Waits for a flush that did not complete at once, at most <see cref="StalledFlushTimeout"/> through the connection's
    /// one timer; past it the flush is cancelled, and the loop wakes to end the connection.
    /// </summary>
    private async ValueTask<FlushResult> WaitForFlushAsync(ValueTask<FlushResult> pending)
    {
        Task<FlushResult> flush = pending.AsTask();
        while (true)
        {
            CancellationToken token;
            lock (Sync)
            {
                if (!ArmFlushTimer(out token))
                {
                    LogStalledFlush(_logger);
                    _flushTimedOut = true;
                    _transportOutput.CancelPendingFlush();
                    _input.CancelPendingRead();
                    break;
                }
            }

            try
            {
                return await flush.WaitAsync(token);
            }
            catch (OperationCanceledException) when (token.IsCancellationRequested)
            {
                // The timer fired: for this deadline, or for one of the loop's.
            }
        }

        FlushResult result = await flush;
        return new FlushResult(isCanceled: true, result.IsCompleted);
    }

    /// <summary>Arms the timer for the flush's deadline and returns its token; false once the deadline has passed.</summary>
    private bool ArmFlushTimer(out CancellationToken token)
    {
        token = default;
        long now = Time.GetTimestamp();
        TimeSpan left = StalledFlushTimeout - Time.GetElapsedTime(_flushWaitingSince, now);
        if (left <= TimeSpan.Zero)
        {
            return false;
        }

        CancellationTokenSource timer = Timer();
        ArmAt(now, left);
        token = timer.Token;
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool Calm(string reason)
    {
        GoAway(Http2ErrorCode.EnhanceYourCalm, reason);
        return true;
    }

    [LoggerMessage(EventId = 31, Level = LogLevel.Debug, Message = "HTTP/2 connection ended: a flush waited too long for the client to read")]
    private static partial void LogStalledFlush(ILogger logger);

    [LoggerMessage(EventId = 30, Level = LogLevel.Debug, Message = "HTTP/2 streams reset: {Bytes} response bytes waited for closed windows too long")]
    private static partial void LogStalledResponses(ILogger logger, long bytes);
}
