using System.IO.Pipelines;
using System.Net.Security;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>
/// The codec's output on a TLS connection: what it writes is encrypted by <see cref="SslStream"/> on each flush. When
/// the codec completes it, the TLS layer ends its sending as a transport ends a connection's: the rest flushed, then a
/// close_notify alert (RFC 8446 §6.1), then the transport's own output completed, so a transport that half-closes sends
/// its FIN and the codec can still read (and linger) until the client closes.
/// </summary>
internal sealed class TlsOutput(PipeWriter encrypting, SslStream ssl, PipeWriter transportOutput) : PipeWriter
{
    private bool _ended;

    public override bool CanGetUnflushedBytes => encrypting.CanGetUnflushedBytes;

    public override long UnflushedBytes => encrypting.UnflushedBytes;

    public override void Advance(int bytes) => encrypting.Advance(bytes);

    public override Memory<byte> GetMemory(int sizeHint = 0) => encrypting.GetMemory(sizeHint);

    public override Span<byte> GetSpan(int sizeHint = 0) => encrypting.GetSpan(sizeHint);

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default) => encrypting.FlushAsync(cancellationToken);

    public override ValueTask<FlushResult> WriteAsync(ReadOnlyMemory<byte> source, CancellationToken cancellationToken = default) => encrypting.WriteAsync(source, cancellationToken);

    public override void CancelPendingFlush() => encrypting.CancelPendingFlush();

    // Nothing can be sent synchronously: the connection's end (TlsServer) sends the alert and ends the transport's output.
    public override void Complete(Exception? exception = null) => encrypting.Complete(exception);

    public override async ValueTask CompleteAsync(Exception? exception = null)
    {
        if (_ended)
        {
            return;
        }

        _ended = true;
        try
        {
            await encrypting.CompleteAsync(exception).ConfigureAwait(false);
            if (exception is null)
            {
                await ssl.ShutdownAsync().ConfigureAwait(false);
            }
        }
        catch (Exception fault) when (fault is IOException or ObjectDisposedException or InvalidOperationException)
        {
            // The peer is gone: there is no one to tell.
        }

        await transportOutput.CompleteAsync().ConfigureAwait(false);
    }
}
