using System.Buffers;
using System.IO.Pipelines;

namespace PlatformBenchmarks.Http.Tls.OpenSsl;

/// <summary>
/// The codec's output on an OpenSSL connection: it writes plaintext into a pooled buffer, and each flush encrypts all of
/// it with one <c>SSL_write</c> (records of up to 2^14 bytes) into the transport's output, on the flushing thread. When
/// the codec completes it, the rest is sent, then a close_notify (RFC 8446 §6.1), then the transport's output is
/// completed, as <see cref="TlsOutput"/> does for SslStream: a transport that half-closes sends its FIN and the codec
/// can still read (and linger) until the client closes.
/// </summary>
internal sealed class OpenSslOutput(OpenSslConnection connection, PipeWriter transportOutput) : PipeWriter
{
    private const int MinimumBufferSize = 4096;

    private byte[]? _buffer;
    private int _written;
    private bool _ended;

    public override bool CanGetUnflushedBytes => true;

    public override long UnflushedBytes => _written;

    public override void Advance(int bytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(bytes);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(bytes, (_buffer?.Length ?? 0) - _written);
        _written += bytes;
    }

    public override Memory<byte> GetMemory(int sizeHint = 0) => Reserve(sizeHint).AsMemory(_written);

    public override Span<byte> GetSpan(int sizeHint = 0) => Reserve(sizeHint).AsSpan(_written);

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        // Taken before the call, so bytes are never encrypted twice, whatever it throws.
        ReadOnlySpan<byte> plaintext = _buffer.AsSpan(0, _written);
        _written = 0;
        ValueTask<FlushResult> flush;
        try
        {
            // Encrypting and moving the records to the transport take one hold of the connection's gate.
            flush = connection.SendAsync(plaintext, cancellationToken);
        }
        catch (IOException)
        {
            // The connection failed: the codec sees its output completed, as when the transport stops sending.
            flush = new ValueTask<FlushResult>(new FlushResult(isCanceled: false, isCompleted: true));
        }
        finally
        {
            // The buffer goes back between flushes: an idle connection holds no plaintext memory.
            Release();
        }

        return flush;
    }

    public override void CancelPendingFlush() => transportOutput.CancelPendingFlush();

    // Nothing can be sent synchronously: the connection's end (TlsServer) completes this writer asynchronously.
    public override void Complete(Exception? exception = null)
    {
        if (exception is not null)
        {
            _written = 0;
        }
    }

    public override async ValueTask CompleteAsync(Exception? exception = null)
    {
        if (_ended)
        {
            return;
        }

        _ended = true;
        try
        {
            if (exception is null)
            {
                EncryptBuffered();
                connection.Shutdown();
            }

            // The rest, the close_notify, or the fatal alert OpenSSL wrote when a record failed.
            await connection.SendAsync().ConfigureAwait(false);
        }
        catch (Exception fault) when (fault is IOException or InvalidOperationException)
        {
            // The peer is gone: there is no one to tell.
        }
        finally
        {
            _written = 0;
            Release();
        }

        await transportOutput.CompleteAsync().ConfigureAwait(false);
    }

    private void EncryptBuffered()
    {
        if (_written > 0)
        {
            int written = _written;
            _written = 0;
            connection.Encrypt(_buffer.AsSpan(0, written));
        }

        // The buffer goes back between flushes: an idle connection holds no plaintext memory.
        Release();
    }

    private byte[] Reserve(int sizeHint)
    {
        ObjectDisposedException.ThrowIf(_ended, this);
        int needed = _written + Math.Max(sizeHint, 1);
        if (_buffer is null || needed > _buffer.Length)
        {
            byte[] larger = ArrayPool<byte>.Shared.Rent(Math.Max(needed, Math.Max(MinimumBufferSize, (_buffer?.Length ?? 0) * 2)));
            if (_buffer is not null)
            {
                _buffer.AsSpan(0, _written).CopyTo(larger);
                ArrayPool<byte>.Shared.Return(_buffer);
            }

            _buffer = larger;
        }

        return _buffer;
    }

    private void Release()
    {
        if (_buffer is not null && _written == 0)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = null;
        }
    }
}
