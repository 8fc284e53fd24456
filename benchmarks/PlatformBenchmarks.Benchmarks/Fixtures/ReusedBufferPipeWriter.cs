using System.IO.Pipelines;

namespace PlatformBenchmarks.Benchmarks.Fixtures;

/// <summary>
/// A <see cref="PipeWriter"/> that hands out the same buffer for every write and keeps only the last write, so a
/// response-writing benchmark measures composing the response and nothing of a pipe's segment management.
/// </summary>
internal sealed class ReusedBufferPipeWriter : PipeWriter
{
    private byte[] _buffer = new byte[4096];
    private int _lastWritten;

    /// <summary>The bytes of the last <see cref="Advance"/>.</summary>
    public ReadOnlySpan<byte> LastWritten => _buffer.AsSpan(0, _lastWritten);

    public int LastWrittenCount => _lastWritten;

    public override void Advance(int bytes)
    {
        if ((uint)bytes > (uint)_buffer.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(bytes));
        }

        _lastWritten = bytes;
    }

    public override Memory<byte> GetMemory(int sizeHint = 0)
    {
        Reserve(sizeHint);
        return _buffer;
    }

    public override Span<byte> GetSpan(int sizeHint = 0)
    {
        Reserve(sizeHint);
        return _buffer;
    }

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default) => default;

    public override void CancelPendingFlush()
    {
    }

    public override void Complete(Exception? exception = null)
    {
    }

    private void Reserve(int sizeHint)
    {
        if (sizeHint > _buffer.Length)
        {
            _buffer = new byte[Math.Max(sizeHint, _buffer.Length * 2)];
        }
    }
}
