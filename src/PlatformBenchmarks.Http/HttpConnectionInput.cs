using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

/// <summary>
/// The one owner of a connection's input pipe: the read in hand, how far it has been used, and how the last read
/// ended. The connection loop and the body its handler reads both go through it, so whichever of them reads next
/// continues from the bytes the other left, and the pipe is advanced in one place.
/// </summary>
internal sealed class HttpConnectionInput
{
    private enum State : byte
    {
        /// <summary>No read in hand: the next use of the input starts with a read.</summary>
        Idle,

        /// <summary>A read in hand: <see cref="Unread"/> is its part not used yet.</summary>
        Holding,
    }

    private readonly PipeReader _reader;
    private ReadOnlySequence<byte> _unread;
    private SequencePosition _end;
    private long _released;
    private State _state;
    private bool _completed;
    private bool _canceled;

    public HttpConnectionInput(PipeReader reader) => _reader = reader;

    public PipeReader Reader => _reader;

    /// <summary>Whether a read is in hand (none after a read that failed or timed out).</summary>
    public bool HoldsRead => _state == State.Holding;

    /// <summary>The bytes of the read in hand not used yet; set as they are used.</summary>
    public ReadOnlySequence<byte> Unread
    {
        get => _unread;
        set => _unread = value;
    }

    /// <summary>The client has closed its side: after <see cref="Unread"/>, nothing more comes.</summary>
    public bool IsCompleted => _completed;

    /// <summary>The host asked connections to close (a read returned canceled): the connection ends after the request in flight.</summary>
    public bool IsCanceled => _canceled;

    /// <summary>Waits for more bytes than the read given back had; take the result with <see cref="Take"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken)
    {
        Debug.Assert(_state == State.Idle, "A read is in hand: give it back first.");
        return _reader.ReadAsync(cancellationToken);
    }

    /// <summary>Takes a read in hand and returns how many bytes it brought beyond those given back unread.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long Take(in ReadResult result)
    {
        _unread = result.Buffer;
        _end = result.Buffer.End;
        _completed = result.IsCompleted;
        _canceled |= result.IsCanceled;
        _state = State.Holding;
        return _unread.Length - _released;
    }

    /// <summary>
    /// Gives the read in hand back to the pipe: everything before <see cref="Unread"/> is used, the rest has been looked
    /// at, so the next read waits for more.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Release()
    {
        Debug.Assert(_state == State.Holding, "No read in hand.");
        _reader.AdvanceTo(_unread.Start, _end);
        _released = _unread.Length;
        _state = State.Idle;
    }

    /// <summary>Gives the read in hand back with all of it used (the bytes are dropped).</summary>
    public void ReleaseAll()
    {
        _unread = _unread.Slice(_unread.End);
        Release();
    }
}
