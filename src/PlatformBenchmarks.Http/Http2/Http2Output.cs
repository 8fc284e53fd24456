using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// The frames one HTTP/2 connection sends, written into its output pipe (never flushed here: the connection flushes
/// once per read), and the send side of flow control (RFC 9113 §6.9): the connection's window and, for each stream
/// whose response did not fit, its own window and the bytes still owed, sent as WINDOW_UPDATE frames open the windows.
/// A stream's owed bytes are a copy of its response's body; the connection bounds what they add up to, and how long they
/// may wait (docs/decisions/0020-http2.md, "Defences").
/// </summary>
internal sealed class Http2Output
{
    /// <summary>The initial window of the connection and of each stream until SETTINGS say otherwise (§6.9.2).</summary>
    public const int DefaultWindowSize = 65_535;

    private const int HeldBufferKept = 16 * 1024;

    private readonly PipeWriter _output;

    // Frames written while a flush of _output is under way outside the lock: a PipeWriter over a stream (SslStream's)
    // must not be written while it flushes, since its flush walks and then drops its buffers. The flush's end moves
    // them on (EndFlush).
    private ArrayBufferWriter<byte>? _held;
    private bool _flushing;
    private readonly Dictionary<int, Owed> _owed = [];

    // The send windows of the streams this side keeps (handler running, request content still due: RFC 9113 §5.1 open
    // or half-closed) and of those owing bytes, so a WINDOW_UPDATE that comes before the response is kept, and one past
    // 2^31-1 is an error however far the response has got (§6.9.1). A stream in neither has the initial window.
    private readonly Dictionary<int, StreamWindow> _windows = [];

    // The streams with bytes owed, in the order they were blocked: a window that opens serves the oldest first.
    private readonly List<int> _blocked = [];
    private long _connectionWindow = DefaultWindowSize;
    private int _initialStreamWindow = DefaultWindowSize;
    private long _owedBytes;

    public Http2Output(PipeWriter output) => _output = output;

    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1859", Justification = "Either the output or the buffer held aside while it flushes.")]
    private IBufferWriter<byte> Writer => _flushing ? _held ??= new ArrayBufferWriter<byte>() : _output;

    /// <summary>
    /// The connection's lock: handlers that complete on their own write their responses concurrently with the frame loop,
    /// so the output, the encoder (whose blocks must leave in the order they were encoded) and the streams are used under it.
    /// </summary>
    public Lock Sync { get; } = new();

    /// <summary>The connection has ended: responses written from now on are dropped.</summary>
    public bool IsClosed { get; set; }

    /// <summary>The encoder of this connection's header blocks, which mirrors the peer's decoder.</summary>
    public HpackEncoder Encoder { get; } = new();

    /// <summary>The peer's SETTINGS_MAX_FRAME_SIZE: no frame sent is larger.</summary>
    public int MaxFrameSize { get; set; } = Http2Frame.DefaultMaxFrameSize;

    /// <summary>Whether anything was written since the last flush.</summary>
    public bool HasOutput { get; set; }

    /// <summary>
    /// How many streams the connection no longer keeps still owe response bytes: they count as open (half-closed, remote)
    /// toward the limit, beside the connection's own.
    /// </summary>
    public int OwingStreamCount
    {
        get
        {
            int count = _owed.Count;
            foreach (int streamId in _blocked)
            {
                count -= _windows[streamId].Kept ? 1 : 0;
            }

            return count;
        }
    }

    /// <summary>The streams owing bytes, oldest first.</summary>
    public IReadOnlyList<int> OwingStreams => _blocked;

    public bool IsOwing(int streamId) => _owed.ContainsKey(streamId);

    /// <summary>The response bytes held for streams whose windows are closed (the connection's defences bound them).</summary>
    public long OwedBytes => _owedBytes;

    /// <summary>How many of the owed bytes have been sent since the connection began: it moves when a window opens.</summary>
    public long OwedBytesSent { get; private set; }

    /// <summary>
    /// The frames written in answer to the peer's own (SETTINGS and PING acknowledgements, RST_STREAM, WINDOW_UPDATE)
    /// since the connection last cleared it; the connection bounds it between two flushes.
    /// </summary>
    public int ControlFramesQueued { get; set; }

    public void WriteSettings(ReadOnlySpan<(Http2SettingsParameter Parameter, uint Value)> settings) =>
        Commit(Http2FrameWriter.WriteSettings(Writer.GetSpan(Http2Frame.HeaderLength + (settings.Length * Http2FrameWriter.SettingLength)), settings));

    public void WriteSettingsAck() => CommitControl(Http2FrameWriter.WriteSettingsAck(Writer.GetSpan(Http2Frame.HeaderLength)));

    public void WritePing(ulong data) => Commit(Http2FrameWriter.WritePing(Writer.GetSpan(Http2Frame.HeaderLength + 8), data, ack: false));

    public void WritePingAck(ulong data) => CommitControl(Http2FrameWriter.WritePing(Writer.GetSpan(Http2Frame.HeaderLength + 8), data, ack: true));

    public void WriteWindowUpdate(int streamId, int increment) =>
        CommitControl(Http2FrameWriter.WriteWindowUpdate(Writer.GetSpan(Http2Frame.HeaderLength + 4), streamId, increment));

    /// <summary>The connection keeps a stream (§5.1, open or half-closed): its send window is followed from now on.</summary>
    public void KeepStream(int streamId)
    {
        ref StreamWindow window = ref CollectionsMarshal.GetValueRefOrAddDefault(_windows, streamId, out bool exists);
        if (!exists)
        {
            window.Window = _initialStreamWindow;
        }

        window.Kept = true;
    }

    /// <summary>A flush of the output goes on outside the lock: until it ends, frames are held aside.</summary>
    public void BeginFlush() => _flushing = true;

    /// <summary>The flush has ended: the frames held meanwhile go to the output, in order, for the next flush.</summary>
    public void EndFlush()
    {
        _flushing = false;
        if (_held is { WrittenCount: > 0 })
        {
            _output.Write(_held.WrittenSpan);
            _held.ResetWrittenCount();
            HasOutput = true;
        }

        if (_held is { Capacity: > HeldBufferKept })
        {
            // A burst's buffer is not kept for the connection's life.
            _held = null;
        }
    }

    /// <summary>The connection no longer keeps the stream: its window is forgotten once it owes nothing.</summary>
    public void ForgetStream(int streamId)
    {
        if (_owed.ContainsKey(streamId))
        {
            CollectionsMarshal.GetValueRefOrNullRef(_windows, streamId).Kept = false;
        }
        else
        {
            _windows.Remove(streamId);
        }
    }

    /// <summary>Resets a stream (§6.4); whatever it still owed is dropped.</summary>
    public void WriteRstStream(int streamId, Http2ErrorCode code)
    {
        DropOwed(streamId);
        CommitControl(Http2FrameWriter.WriteRstStream(Writer.GetSpan(Http2Frame.HeaderLength + 4), streamId, code));
    }

    public void WriteGoAway(int lastStreamId, Http2ErrorCode code, ReadOnlySpan<byte> debugData) =>
        Commit(Http2FrameWriter.WriteGoAway(Writer.GetSpan(Http2Frame.HeaderLength + 8 + debugData.Length), lastStreamId, code, debugData));

    /// <summary>A header block as HEADERS and, past the peer's frame size, CONTINUATION frames (§4.3, §6.10).</summary>
    public void WriteHeaders(int streamId, ReadOnlySpan<byte> block, bool endStream)
    {
        Http2FrameType type = Http2FrameType.Headers;
        byte flags = endStream ? Http2FrameFlags.EndStream : (byte)0;
        do
        {
            int length = Math.Min(block.Length, MaxFrameSize);
            bool last = length == block.Length;
            WriteFrame(streamId, type, (byte)(flags | (last ? Http2FrameFlags.EndHeaders : 0)), block.Slice(0, length));
            block = block.Slice(length);
            type = Http2FrameType.Continuation;
            flags = 0;
        }
        while (!block.IsEmpty);
    }

    /// <summary>
    /// A response body as DATA frames, the last with END_STREAM: what the stream's and the connection's windows allow
    /// now, the rest copied aside until WINDOW_UPDATE frames open them.
    /// </summary>
    public void WriteData(int streamId, ReadOnlySpan<byte> body)
    {
        // One lookup: SendData does not change the table, so the entry's reference stays valid across it.
        ref StreamWindow window = ref CollectionsMarshal.GetValueRefOrNullRef(_windows, streamId);
        bool kept = !Unsafe.IsNullRef(ref window);
        long streamWindow = kept ? window.Window : _initialStreamWindow;
        int sent = SendData(streamId, body, ref streamWindow);
        if (kept)
        {
            window.Window = streamWindow;
        }

        if (sent < body.Length)
        {
            byte[] rest = ArrayPool<byte>.Shared.Rent(body.Length - sent);
            body.Slice(sent).CopyTo(rest);
            _owed[streamId] = new Owed(rest, 0, body.Length - sent);
            _blocked.Add(streamId);
            _owedBytes += body.Length - sent;
            if (!kept)
            {
                _windows[streamId] = new StreamWindow(streamWindow, kept: false);
            }
        }
    }

    /// <summary>A WINDOW_UPDATE (§6.9): false when it takes a window past 2^31 - 1 (FLOW_CONTROL_ERROR, §6.9.1).</summary>
    public bool OnWindowUpdate(int streamId, int increment)
    {
        if (streamId == 0)
        {
            _connectionWindow += increment;
            if (_connectionWindow > Http2Frame.MaxWindowSize)
            {
                return false;
            }
        }
        else
        {
            ref StreamWindow window = ref CollectionsMarshal.GetValueRefOrNullRef(_windows, streamId);
            if (Unsafe.IsNullRef(ref window))
            {
                // A stream closed, or answered whole in the read that opened it: nothing more is sent on it.
                return true;
            }

            window.Window += increment;
            if (window.Window > Http2Frame.MaxWindowSize)
            {
                return false;
            }
        }

        SendOwed();
        return true;
    }

    /// <summary>
    /// The peer's SETTINGS_INITIAL_WINDOW_SIZE: every stream's window moves by the change (§6.9.2); false when one passes
    /// 2^31 - 1 (FLOW_CONTROL_ERROR).
    /// </summary>
    public bool OnInitialWindowSize(uint size)
    {
        int delta = (int)size - _initialStreamWindow;
        _initialStreamWindow = (int)size;
        foreach (int streamId in _windows.Keys)
        {
            ref StreamWindow window = ref CollectionsMarshal.GetValueRefOrNullRef(_windows, streamId);
            window.Window += delta;
            if (window.Window > Http2Frame.MaxWindowSize)
            {
                return false;
            }
        }

        SendOwed();
        return true;
    }

    /// <summary>The stream was reset, by either side: nothing more is sent on it, and its window is forgotten.</summary>
    public void DropOwed(int streamId)
    {
        _windows.Remove(streamId);
        if (_owed.Remove(streamId, out Owed owed))
        {
            _blocked.Remove(streamId);
            _owedBytes -= owed.Length;
            ArrayPool<byte>.Shared.Return(owed.Bytes);
        }
    }

    /// <summary>Gives back what the streams still owed when the connection ends.</summary>
    public void Release()
    {
        foreach (Owed owed in _owed.Values)
        {
            ArrayPool<byte>.Shared.Return(owed.Bytes);
        }

        _owed.Clear();
        _blocked.Clear();
        _windows.Clear();
        _held = null;
        _owedBytes = 0;
    }

    private void SendOwed()
    {
        for (int i = 0; i < _blocked.Count && _connectionWindow > 0; i++)
        {
            int streamId = _blocked[i];
            Owed owed = _owed[streamId];
            ref StreamWindow window = ref CollectionsMarshal.GetValueRefOrNullRef(_windows, streamId);
            int sent = SendData(streamId, owed.Bytes.AsSpan(owed.Offset, owed.Length), ref window.Window);
            _owedBytes -= sent;
            OwedBytesSent += sent;
            if (sent == owed.Length)
            {
                if (!window.Kept)
                {
                    _windows.Remove(streamId);
                }

                _owed.Remove(streamId);
                _blocked.RemoveAt(i--);
                ArrayPool<byte>.Shared.Return(owed.Bytes);
            }
            else
            {
                _owed[streamId] = new Owed(owed.Bytes, owed.Offset + sent, owed.Length - sent);
            }
        }
    }

    /// <summary>Sends what the windows allow of <paramref name="data"/>, END_STREAM with its last byte; returns how much.</summary>
    private int SendData(int streamId, ReadOnlySpan<byte> data, ref long streamWindow)
    {
        int sent = 0;
        while (sent < data.Length)
        {
            int length = (int)Math.Min(Math.Min(streamWindow, _connectionWindow), Math.Min(data.Length - sent, MaxFrameSize));
            if (length <= 0)
            {
                break;
            }

            bool last = sent + length == data.Length;
            WriteFrame(streamId, Http2FrameType.Data, last ? Http2FrameFlags.EndStream : (byte)0, data.Slice(sent, length));
            sent += length;
            streamWindow -= length;
            _connectionWindow -= length;
        }

        return sent;
    }

    private void WriteFrame(int streamId, Http2FrameType type, byte flags, ReadOnlySpan<byte> payload)
    {
        Span<byte> header = Writer.GetSpan(Http2Frame.HeaderLength);
        Writer.Advance(Http2FrameWriter.WriteHeader(header, payload.Length, type, flags, streamId));
        Writer.Write(payload);
        HasOutput = true;
    }

    private void Commit(int written)
    {
        Writer.Advance(written);
        HasOutput = true;
    }

    private void CommitControl(int written)
    {
        Commit(written);
        ControlFramesQueued++;
    }

    /// <summary>A stream's response bytes not sent yet.</summary>
    private record struct Owed(byte[] Bytes, int Offset, int Length);

    /// <summary>A stream's send window, and whether the connection keeps the stream (else it is here only while owing).</summary>
    private struct StreamWindow(long window, bool kept)
    {
        public long Window = window;
        public bool Kept = kept;
    }
}
