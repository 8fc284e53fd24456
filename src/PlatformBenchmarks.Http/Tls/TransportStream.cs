using System.Buffers;
using System.IO.Pipelines;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>
/// The transport's pipes as the stream <see cref="System.Net.Security.SslStream"/> reads records from and writes them to.
/// Asynchronous only: the TLS layer never blocks a loop thread. A read copies what has arrived, up to the buffer's size;
/// a write copies into the transport's output and flushes it, and fails once the transport has stopped sending.
/// </summary>
internal sealed class TransportStream(IDuplexPipe transport) : Stream
{
    private readonly PipeReader _input = transport.Input;
    private readonly PipeWriter _output = transport.Output;

    public override bool CanRead => true;

    public override bool CanWrite => true;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        while (true)
        {
            ReadResult result = await _input.ReadAsync(cancellationToken).ConfigureAwait(false);
            ReadOnlySequence<byte> received = result.Buffer;
            if (result.IsCanceled)
            {
                _input.AdvanceTo(received.Start);
                throw new OperationCanceledException(cancellationToken);
            }

            // A zero-byte read waits for data and takes none of it.
            int count = (int)Math.Min(received.Length, buffer.Length);
            received.Slice(0, count).CopyTo(buffer.Span);
            _input.AdvanceTo(received.GetPosition(count));
            if (count > 0 || buffer.IsEmpty || result.IsCompleted)
            {
                return count;
            }
        }
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        => ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        FlushResult result = await _output.WriteAsync(buffer, cancellationToken).ConfigureAwait(false);
        if (result.IsCanceled)
        {
            throw new OperationCanceledException(cancellationToken);
        }

        if (result.IsCompleted)
        {
            // The transport stopped sending (the peer reset or the connection is closing): the codec above sees a fault.
            throw new IOException("The connection's transport no longer sends.");
        }
    }

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        => WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override Task FlushAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public override void Flush()
    {
        // Every write flushes.
    }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("The TLS layer reads asynchronously.");

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException("The TLS layer writes asynchronously.");

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
