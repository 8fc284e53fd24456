using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

/// <summary>
/// The body of the request being answered, read as it arrives: <see cref="ReadAsync"/> hands out the body's own bytes
/// (de-chunked) from the connection's input, never more than the framing says, and never the whole body at once. One
/// instance serves every request of a connection; outside a request with a body it reads as empty.
/// </summary>
/// <remarks>
/// A read that has to wait for the client first sends what the connection has written so far, and the
/// <c>100 Continue</c> the client may be waiting for; the waits are held to <see cref="HttpLimits.MinRequestBodyDataRate"/>.
/// Framing errors, a body past its resource's limit (<see cref="IHttpApplication.MaxRequestBodySize"/>), a body too
/// slow, and the connection ending inside it throw <see cref="RequestBodyException"/>: the engine then answers with the
/// matching status, unless the handler has answered already or the client is gone, and closes the connection either
/// way. A read moves the connection's input on, so the <see cref="HttpRequest"/> it came with must not be used after
/// the first read.
/// </remarks>
public sealed class RequestBody
{
    private readonly HttpConnectionInput? _input;
    private readonly Http1Response? _response;
    private readonly IRequestBodyHost? _host;
    private readonly HttpLimits? _limits;
    private readonly HttpConnectionClock? _clock;

    // A codec that frames bodies itself (HTTP/2's DATA frames) feeds the body through this instead of the input.
    private readonly IRequestContent? _content;

    private RequestBodyReader _framing;
    private BodyKind _kind;
    private long _contentLength;
    private bool _active;
    private bool _complete;
    private bool _truncated;
    private bool _expectContinue;
    private bool _continueOwed;
    private bool _keepAlive;
    private RequestRejection _rejection;
    private Exception? _connectionFault;

    internal RequestBody(HttpConnectionInput input, Http1Response response, IRequestBodyHost host, HttpLimits limits, HttpConnectionClock clock)
    {
        _input = input;
        _response = response;
        _host = host;
        _limits = limits;
        _clock = clock;
    }

    private RequestBody()
    {
    }

    /// <summary>A body fed by a codec of its own (<paramref name="content"/>) rather than read from the HTTP/1.1 input.</summary>
    internal RequestBody(IRequestContent content) => _content = content;

    /// <summary>A body that is always empty, for a request built without a connection.</summary>
    internal static RequestBody Empty { get; } = new();

    /// <summary>Whether the request has a body (a Content-Length above 0, or chunked).</summary>
    public bool HasBody => _content?.HasBody ?? (_active && _kind != BodyKind.None);

    /// <summary>The Content-Length of the body; null when it is chunked (its length is known only at its end).</summary>
    public long? Length => _content is not null ? _content.Length : !_active ? 0 : _kind == BodyKind.Chunked ? null : _contentLength;

    /// <summary>
    /// Copies the next body bytes into <paramref name="destination"/> (not empty) and returns how many; 0 once the body
    /// has ended, its framing included (a chunked body's last chunk and trailers). Waits for the client when none are
    /// here yet. One read at a time.
    /// </summary>
    public ValueTask<int> ReadAsync(Memory<byte> destination)
    {
        if (destination.IsEmpty)
        {
            throw new ArgumentException("A body read needs room for at least one byte.", nameof(destination));
        }

        if (_content is not null)
        {
            return _content.ReadAsync(destination);
        }

        if (!_active)
        {
            return default;
        }

        int read = ReadInHand(destination.Span, out bool needMore);
        return needMore ? ReadSlowAsync(destination) : new ValueTask<int>(read);
    }

    // Pooled: a handler that reads a body through many waits allocates no state machine per wait.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> ReadSlowAsync(Memory<byte> destination)
    {
        while (true)
        {
            await FetchAsync();
            int read = ReadInHand(destination.Span, out bool needMore);
            if (!needMore)
            {
                return read;
            }
        }
    }

    /// <summary>Reads from the bytes already received; <paramref name="needMore"/> when none of the body is here.</summary>
    private int ReadInHand(Span<byte> destination, out bool needMore)
    {
        ThrowIfFailed();
        if (_complete)
        {
            needMore = false;
            return 0;
        }

        if (_expectContinue)
        {
            // The handler reads the body before answering, so the connection can stay open after it (see Start).
            _expectContinue = false;
            if (!_response!.HasWritten)
            {
                _response.SetKeepAlive(_keepAlive);
            }
        }

        ReadOnlySequence<byte> buffer = _input!.Unread;
        ParseStatus status = _framing.ReadData(buffer, destination.Length, out long consumed, out int dataLength, out RequestRejection rejection);
        if (dataLength > 0)
        {
            buffer.Slice(consumed - dataLength, dataLength).CopyTo(destination);
        }

        _input.Unread = buffer.Slice(consumed);
        if (status == ParseStatus.Rejected)
        {
            Fail(rejection);
            ThrowIfFailed();
        }

        _complete = status == ParseStatus.Complete;
        needMore = dataLength == 0 && !_complete;
        return dataLength;
    }

    /// <summary>Waits for more bytes from the client, after sending what is written so far.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask FetchAsync()
    {
        if (_input!.IsCompleted)
        {
            // The client closed its side inside the body: it will never end.
            _truncated = true;
            _response!.SetKeepAlive(false);
            ThrowIfFailed();
        }

        if (!_response!.HasWritten && _continueOwed)
        {
            // RFC 9110 §10.1.1: the client may hold the body back until it is asked for it; ask once, now that it is read.
            _continueOwed = false;
            _response.WriteContinue();
        }

        // The engine's own I/O: a fault here is the transport's, told apart from the handler's by where it happened,
        // whatever its type. It is recorded, and the handler gets this body's exception.
        FlushResult flush;
        try
        {
            flush = await _host!.FlushAsync();
        }
        catch (Exception ex)
        {
            throw ConnectionFailed(ex);
        }

        if (flush.IsCompleted)
        {
            _truncated = true;
            ThrowIfFailed();
        }

        CancellationToken timeout = _clock!.WaitForBody();
        _input.Release();
        long arrived;
        try
        {
            // The host asking connections to close cancels this read: the input records it, and this request is still
            // answered, the connection closing after it.
            arrived = _input.Take(await _input.ReadAsync(timeout));
        }
        catch (OperationCanceledException) when (timeout.IsCancellationRequested)
        {
            _clock.EndWait(0);
            Fail(RequestRejection.Timeout);
            ThrowIfFailed();
            throw;
        }
        catch (Exception ex)
        {
            _clock.EndWait(0);
            throw ConnectionFailed(ex);
        }

        _clock.EndWait(arrived);
    }

    /// <summary>
    /// Starts the body of a request whose head has just been parsed; the input's unread bytes are those after the head.
    /// </summary>
    /// <param name="maxBodySize">The largest body the request's resource takes (a chunked body passing it fails with 413).</param>
    /// <returns>Whether the answer must close the connection unless the handler reads the body first.</returns>
    internal bool Start(ref readonly RequestHead head, long maxBodySize)
    {
        _framing = new RequestBodyReader(in head, _limits!, maxBodySize);
        _kind = head.BodyKind;
        _contentLength = head.ContentLength;
        _active = true;
        _complete = false;
        _truncated = false;
        _connectionFault = null;
        _rejection = RequestRejection.None;
        _keepAlive = head.KeepAlive;
        _continueOwed = head.ExpectContinue;

        // RFC 9110 §10.1.1: a client that expects 100-continue may never send a body nobody asked for, so unless the
        // handler reads it (or it is all here), the answer closes the connection instead of waiting to drain it.
        _expectContinue = head.ExpectContinue && !(head.BodyKind == BodyKind.ContentLength && _input!.Unread.Length >= head.ContentLength);
        return _expectContinue;
    }

    /// <summary>Called once the handler is done: it reads as empty from now on.</summary>
    internal void End() => _active = false;

    /// <summary>Whether the body has been read to its end, framing included.</summary>
    internal bool IsComplete => _complete;

    /// <summary>Whether the client closed its side inside the body.</summary>
    internal bool Truncated => _truncated;

    /// <summary>Why a read of the body failed (framing, limit, timeout); None when none did.</summary>
    internal RequestRejection Rejection => _rejection;

    /// <summary>The transport's fault that ended the connection while the body was waited for; null when none did.</summary>
    internal Exception? ConnectionFault => _connectionFault;

    /// <summary>
    /// Whether the body itself failed (its framing, its limit, its rate, the connection ending inside it): whatever the
    /// handler then throws follows from that, and is answered as the body's failure, not as the application's.
    /// </summary>
    internal bool Failed => _rejection != RequestRejection.None || _truncated;

    /// <summary>Steps over body bytes the handler did not read, as the engine discards them.</summary>
    internal ParseStatus Skip(in ReadOnlySequence<byte> buffer, out long consumed, out RequestRejection rejection) =>
        _framing.Read(buffer, out consumed, out rejection);

    private void Fail(RequestRejection rejection)
    {
        _rejection = rejection;
        _response!.SetKeepAlive(false);
    }

    private RequestBodyException ConnectionFailed(Exception fault)
    {
        _truncated = true;
        _connectionFault = fault;
        _response!.SetKeepAlive(false);
        return new RequestBodyException(RequestRejection.None, fault);
    }

    private void ThrowIfFailed()
    {
        if (_rejection != RequestRejection.None || _truncated)
        {
            throw new RequestBodyException(_rejection);
        }
    }
}

/// <summary>
/// A request body could not be read: malformed framing (400), too large (413), too slow (408), or the connection ended
/// inside it (<see cref="Rejection"/> None; nothing is answered; a transport fault is the inner exception). The engine answers it if the handler lets it pass.
/// </summary>
internal sealed class RequestBodyException : IOException
{
    public RequestBodyException()
        : this(RequestRejection.None)
    {
    }

    public RequestBodyException(string message)
        : base(message)
    {
    }

    public RequestBodyException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    internal RequestBodyException(RequestRejection rejection, Exception? innerException = null)
        : base(rejection == RequestRejection.None ? "The connection ended inside the request body." : System.Text.Encoding.ASCII.GetString(rejection.ToReason()).TrimEnd(), innerException)
    {
        Rejection = rejection;
    }

    public RequestRejection Rejection { get; }
}

/// <summary>
/// A body a codec frames itself (HTTP/2's DATA frames, RFC 9113 §8.1), handed to handlers through the same
/// <see cref="RequestBody"/> as HTTP/1.1's; its reads follow <see cref="RequestBody.ReadAsync"/>'s contract.
/// </summary>
internal interface IRequestContent
{
    bool HasBody { get; }

    /// <summary>The Content-Length the request announced; null when it announced none.</summary>
    long? Length { get; }

    ValueTask<int> ReadAsync(Memory<byte> destination);
}

/// <summary>What a <see cref="RequestBody"/> needs of its connection when it has to wait for the client.</summary>
internal interface IRequestBodyHost
{
    /// <summary>Sends what the connection has written so far: earlier answers, a 100 Continue.</summary>
    ValueTask<FlushResult> FlushAsync();
}
