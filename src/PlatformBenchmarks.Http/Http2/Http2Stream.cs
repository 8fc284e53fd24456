using System.Buffers;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// A request stream whose handler runs past the frame that dispatched it, or whose content is still arriving (RFC 9113
/// §5.1: open, or half-closed (remote) while its handler runs). It holds the content received and not read yet, at most
/// the window this side advertised (a ring of <see cref="Http2Output.DefaultWindowSize"/> bytes), and hands it to the
/// handler through <see cref="RequestBody"/>; the windows open again only as the handler reads
/// (<see cref="IHttp2StreamHost.OnConsumed"/>). Every member runs under the connection's lock (<see cref="Http2Output.Sync"/>).
/// </summary>
internal sealed class Http2Stream : IRequestContent
{
    private const int Capacity = Http2Output.DefaultWindowSize;

    private readonly IHttp2StreamHost _host;
    private readonly long _contentLength;
    private readonly long _maxBodySize;
    private byte[]? _buffer;
    private int _start;
    private int _count;
    private long _received;
    private TaskCompletionSource? _waiter;

    public Http2Stream(IHttp2StreamHost host, int id, Http2Response response, bool requestEnded, long contentLength, long maxBodySize)
    {
        _host = host;
        Id = id;
        Response = response;
        RequestEnded = requestEnded;
        _contentLength = contentLength;
        _maxBodySize = maxBodySize;
        Window = Capacity;
        Body = requestEnded ? RequestBody.Empty : new RequestBody(this);
    }

    public int Id { get; }

    public Http2Response Response { get; }

    public RequestBody Body { get; }

    /// <summary>END_STREAM has come from the client: no more content (half-closed, remote).</summary>
    public bool RequestEnded { get; private set; }

    /// <summary>The stream was reset, by either side, or the connection ended: nothing more is read or written on it.</summary>
    public bool IsReset { get; private set; }

    /// <summary>The handler has completed.</summary>
    public bool HandlerDone { get; set; }

    /// <summary>Answered whole while the request goes on: kept only until the client ends or resets it.</summary>
    public bool IsAnswered { get; set; }

    /// <summary>What the client may still send on the stream before a WINDOW_UPDATE (§6.9).</summary>
    public int Window { get; set; }

    /// <summary>Bytes read by the handler (or dropped) and not yet given back to the stream's window.</summary>
    public int Unacknowledged { get; set; }

    /// <summary>Why the content failed so that the handler's reads throw (413 for a body past its limit); None otherwise.</summary>
    public RequestRejection Rejection { get; private set; }

    public bool HasBody => !RequestEnded || _received > 0;

    public long? Length => _contentLength >= 0 ? _contentLength : null;

    /// <summary>
    /// Takes a DATA frame's content. Returns false when it breaks the request's framing: more than its Content-Length
    /// (§8.1.1, the caller resets the stream with PROTOCOL_ERROR).
    /// </summary>
    public bool Receive(in ReadOnlySequence<byte> data)
    {
        int length = (int)data.Length;
        _received += length;
        if (_contentLength >= 0 && _received > _contentLength)
        {
            return false;
        }

        if (_received > _maxBodySize)
        {
            // The handler's next read throws; what it has read so far stays read.
            Rejection = RequestRejection.BodyTooLarge;
            _host.OnConsumed(this, length);
            Wake();
            return true;
        }

        if (HandlerDone)
        {
            // Answered already: the rest of the content has no reader (§8.1).
            Unacknowledged += length;
            _host.OnConsumed(this, length);
            return true;
        }

        _buffer ??= ArrayPool<byte>.Shared.Rent(Capacity);
        int end = (_start + _count) % Capacity;
        foreach (ReadOnlyMemory<byte> segment in data)
        {
            ReadOnlySpan<byte> span = segment.Span;
            int first = Math.Min(span.Length, Capacity - end);
            span.Slice(0, first).CopyTo(_buffer.AsSpan(end));
            span.Slice(first).CopyTo(_buffer);
            end = (end + span.Length) % Capacity;
        }

        _count += length;
        Wake();
        return true;
    }

    /// <summary>END_STREAM: false when the content is shorter than its Content-Length (§8.1.1).</summary>
    public bool End()
    {
        RequestEnded = true;
        Wake();
        return _contentLength < 0 || _received == _contentLength || Rejection != RequestRejection.None;
    }

    /// <summary>The stream is reset or the connection ends: a read waiting now, or any later, throws.</summary>
    public void Abort()
    {
        IsReset = true;
        if (!HandlerDone)
        {
            // Once its handler is done the response went back to the pool and may be another stream's by now.
            Response.IsCanceled = true;
        }

        Wake();
    }

    /// <summary>Drops the content the handler did not read, returning how many bytes that was, and its buffer.</summary>
    public int ReleaseContent()
    {
        int dropped = _count;
        _count = 0;
        if (_buffer is not null)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = null;
        }

        return dropped;
    }

    public ValueTask<int> ReadAsync(Memory<byte> destination)
    {
        lock (_host.Sync)
        {
            if (TryRead(destination.Span, out int read))
            {
                return new ValueTask<int>(read);
            }

            _waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return WaitAsync(_waiter.Task, destination);
        }
    }

    private async ValueTask<int> WaitAsync(Task arrived, Memory<byte> destination)
    {
        while (true)
        {
            await arrived;
            lock (_host.Sync)
            {
                if (TryRead(destination.Span, out int read))
                {
                    return read;
                }

                _waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                arrived = _waiter.Task;
            }
        }
    }

    /// <summary>Reads what is here; false when nothing is and the content goes on. Throws once the content failed.</summary>
    private bool TryRead(Span<byte> destination, out int read)
    {
        read = 0;
        if (Rejection != RequestRejection.None || IsReset)
        {
            throw new RequestBodyException(Rejection);
        }

        if (_count > 0)
        {
            read = Math.Min(destination.Length, _count);
            int first = Math.Min(read, Capacity - _start);
            _buffer.AsSpan(_start, first).CopyTo(destination);
            _buffer.AsSpan(0, read - first).CopyTo(destination.Slice(first));
            _start = (_start + read) % Capacity;
            _count -= read;
            Unacknowledged += read;
            _host.OnConsumed(this, read);
            return true;
        }

        return RequestEnded;
    }

    private void Wake()
    {
        TaskCompletionSource? waiter = _waiter;
        _waiter = null;
        waiter?.TrySetResult();
    }
}

/// <summary>What an <see cref="Http2Stream"/> needs of its connection.</summary>
internal interface IHttp2StreamHost
{
    /// <summary>The connection's lock: the streams, the windows and the output are used under it.</summary>
    Lock Sync { get; }

    /// <summary><paramref name="count"/> bytes of the stream's content were read or dropped: the windows may open again.</summary>
    void OnConsumed(Http2Stream stream, int count);
}
