namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// The connection's deadlines and its graceful end. One timer, through the server's <see cref="TimeProvider"/>, cancels
/// the read that waits past the earliest deadline: the client preface and first SETTINGS, the acknowledgement of the
/// server's SETTINGS (§6.5.3) and a header block's end, each within <see cref="HttpLimits.RequestHeadersTimeout"/>;
/// a connection with no stream open within <see cref="HttpLimits.Http2KeepAliveTimeout"/>. The host stopping starts
/// §6.8's two-step GOAWAY: streams in flight finish, and the connection closes once they have.
/// </summary>
internal sealed partial class Http2Connection<TApp>
{
    // The PING that follows the first GOAWAY: its ACK shows the client has seen the GOAWAY (§6.8).
    private const ulong ShutdownPingData = 0x7368_7574_646F_776E;

    // How long the first GOAWAY's PING is waited for: §6.8 asks for at least one round trip, and a client that does not
    // answer must not hold the final GOAWAY back.
    private static readonly TimeSpan s_shutdownPingTimeout = TimeSpan.FromSeconds(1);

    private enum Deadline : byte
    {
        None,
        Preface,
        SettingsAck,
        HeaderBlock,
        KeepAlive,
        ShutdownPing,
        StalledResponse,
    }

    private enum Shutdown : byte
    {
        None,

        /// <summary>GOAWAY with 2^31-1 and a PING sent: streams the client opened meanwhile are still taken.</summary>
        Announced,

        /// <summary>The final GOAWAY sent: no stream above its last is taken; the connection closes once drained.</summary>
        Final,
    }

    private CancellationTokenSource? _timer;

    // The timestamp the timer is set to fire at (long.MaxValue when not set): it is moved only earlier, and a later
    // deadline is found when it fires, so a busy connection does not reset its timer on every read.
    private long _armedAt = long.MaxValue;
    private long _startedAt;
    private long _settingsSentAt;
    private bool _settingsAckDue;
    private long _headerBlockStart;
    private long _idleSince;
    private bool _idle;

    private Shutdown _shutdown;
    private long _pingSentAt;
    private int _goAwayLastStreamId = int.MaxValue;

    private TimeProvider Time => _context.Time;

    private static ReadOnlySpan<byte> StoppingReason => "The server is stopping."u8;

    /// <summary>The final GOAWAY has been sent and every stream has ended: the connection closes.</summary>
    private bool IsDrained => _shutdown == Shutdown.Final && !HasWork;

    /// <summary>The connection starts: the preface and the acknowledgement of the server's SETTINGS are due from now.</summary>
    private void StartTimers()
    {
        _startedAt = _settingsSentAt = Time.GetTimestamp();
        _settingsAckDue = true;
    }

    /// <summary>
    /// Before a read: ends the connection if a deadline has passed (Close), else returns the token that cancels the read
    /// at the earliest one.
    /// </summary>
    private Step ArmTimer(out CancellationToken token)
    {
        token = default;
        if (IsDrained || _flushTimedOut)
        {
            return Step.Close;
        }

        CancellationTokenSource timer = Timer();
        long now = Time.GetTimestamp();
        Deadline next = NextDeadline(now, out TimeSpan left);
        if (next == Deadline.ShutdownPing && left <= TimeSpan.Zero)
        {
            SendFinalGoAway(StoppingReason);
            if (IsDrained)
            {
                return Step.Close;
            }

            next = NextDeadline(now, out left);
        }

        if (next == Deadline.StalledResponse && left <= TimeSpan.Zero)
        {
            // Not a reason to end the connection: the streams holding the bytes are reset, the others go on.
            ResetStalledStreams();
            next = NextDeadline(now, out left);
        }

        if (next != Deadline.None && left <= TimeSpan.Zero)
        {
            return next switch
            {
                Deadline.Preface => GoAway(Http2ErrorCode.ProtocolError, "The client preface did not come in time (RFC 9113 §3.4)."),
                Deadline.SettingsAck => GoAway(Http2ErrorCode.SettingsTimeout, "SETTINGS were not acknowledged in time (RFC 9113 §6.5.3)."),
                Deadline.HeaderBlock => GoAway(Http2ErrorCode.EnhanceYourCalm, "A header block did not end in time."),
                _ => GoAway(Http2ErrorCode.NoError, "The connection was idle."),
            };
        }

        if (next != Deadline.None)
        {
            ArmAt(now, left);
        }

        token = timer.Token;
        return Step.Continue;
    }

    /// <summary>The connection's timer; one that fired is replaced, since a source that fired cannot be reset.</summary>
    private CancellationTokenSource Timer()
    {
        if (_timer is { IsCancellationRequested: true })
        {
            _timer.Dispose();
            _timer = null;
            _armedAt = long.MaxValue;
        }

        return _timer ??= new CancellationTokenSource(Timeout.InfiniteTimeSpan, Time);
    }

    /// <summary>Makes the timer fire <paramref name="left"/> after <paramref name="now"/>, if that is earlier than it would.</summary>
    private void ArmAt(long now, TimeSpan left)
    {
        // A timer counts whole milliseconds: round up, so it never fires before the deadline.
        long milliseconds = Math.Clamp((long)Math.Ceiling(left.TotalMilliseconds), 1, uint.MaxValue - 1);
        long at = now + (long)(milliseconds * (Time.TimestampFrequency / 1000.0));
        if (at < _armedAt)
        {
            _armedAt = at;
            _timer!.CancelAfter(TimeSpan.FromMilliseconds(milliseconds));
        }
    }

    /// <summary>The earliest deadline now running, and the time left to it.</summary>
    private Deadline NextDeadline(long now, out TimeSpan left)
    {
        left = TimeSpan.MaxValue;
        Deadline next = Deadline.None;
        TimeSpan headers = _limits.RequestHeadersTimeout;
        if (!_settingsReceived)
        {
            Earliest(ref next, ref left, Deadline.Preface, headers - Time.GetElapsedTime(_startedAt, now));
        }

        if (_settingsAckDue)
        {
            Earliest(ref next, ref left, Deadline.SettingsAck, headers - Time.GetElapsedTime(_settingsSentAt, now));
        }

        if (_headersStreamId != 0)
        {
            Earliest(ref next, ref left, Deadline.HeaderBlock, headers - Time.GetElapsedTime(_headerBlockStart, now));
        }

        if (_stallArmed)
        {
            Earliest(ref next, ref left, Deadline.StalledResponse, StalledResponseTimeout - Time.GetElapsedTime(_stallArmedAt, now));
        }

        if (_shutdown == Shutdown.Announced)
        {
            Earliest(ref next, ref left, Deadline.ShutdownPing, s_shutdownPingTimeout - Time.GetElapsedTime(_pingSentAt, now));
        }

        // Idle: no stream open or owing, and none being opened. Frames without a stream (PING) do not keep it alive.
        bool idle = _settingsReceived && _shutdown == Shutdown.None && _headersStreamId == 0 && !HasWork;
        if (idle && !_idle)
        {
            _idleSince = now;
        }

        _idle = idle;
        if (idle)
        {
            Earliest(ref next, ref left, Deadline.KeepAlive, _limits.Http2KeepAliveTimeout - Time.GetElapsedTime(_idleSince, now));
        }

        return next;
    }

    private static void Earliest(ref Deadline next, ref TimeSpan left, Deadline candidate, TimeSpan candidateLeft)
    {
        if (candidateLeft < left)
        {
            next = candidate;
            left = candidateLeft;
        }
    }

    /// <summary>
    /// A read returned cancelled: the host asks connections to close (then the first GOAWAY of §6.8), or a stream ended
    /// outside the loop and the deadlines are looked at again.
    /// </summary>
    private Step OnCanceledRead()
    {
        if (_flushTimedOut)
        {
            return Step.Close;
        }

        if (!_closeRequested.IsCancellationRequested || _shutdown != Shutdown.None)
        {
            return Step.Continue;
        }

        if (!_settingsReceived)
        {
            // No stream can be in flight yet.
            return GoAway(Http2ErrorCode.NoError, "The server is stopping.");
        }

        // §6.8: a GOAWAY with the largest identifier first, so streams the client opens meanwhile are still taken, and a
        // PING whose ACK shows it has seen it; then the final GOAWAY with the last stream taken.
        _output.WriteGoAway(int.MaxValue, Http2ErrorCode.NoError, StoppingReason);
        _output.WritePing(ShutdownPingData);
        _pingSentAt = Time.GetTimestamp();
        _shutdown = Shutdown.Announced;
        return Step.Continue;
    }

    private void OnPingAck(ulong data)
    {
        if (_shutdown == Shutdown.Announced && data == ShutdownPingData)
        {
            SendFinalGoAway(StoppingReason);
        }
    }

    private void SendFinalGoAway(ReadOnlySpan<byte> reason)
    {
        _goAwayLastStreamId = _lastStreamId;
        _output.WriteGoAway(_lastStreamId, Http2ErrorCode.NoError, reason);
        _shutdown = Shutdown.Final;
    }
}
