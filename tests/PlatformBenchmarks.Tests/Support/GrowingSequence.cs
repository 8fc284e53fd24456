using System.Buffers;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// A buffer that grows as a pipe's does between reads: bytes are appended into the last segment until it holds
/// <c>segmentSize</c>, then into a new one, and the segments already handed out stay the same objects, so positions
/// in an earlier <see cref="Sequence"/> stay valid in a later one. <see cref="Consume"/> drops bytes from the front, as
/// a reader's <c>AdvanceTo</c> does. Every span read from a segment is counted in <see cref="BytesRead"/>: with
/// segments of one byte, that is the number of bytes a reader of the sequence looked at.
/// </summary>
internal sealed class GrowingSequence
{
    private readonly int _segmentSize;
    private Segment? _first;
    private Segment? _last;
    private int _startIndex;

    public GrowingSequence(int segmentSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(segmentSize, 1);
        _segmentSize = segmentSize;
    }

    /// <summary>The bytes handed out through the segments' spans so far.</summary>
    public long BytesRead { get; private set; }

    /// <summary>The bytes appended and not consumed.</summary>
    public ReadOnlySequence<byte> Sequence => _first is null
        ? ReadOnlySequence<byte>.Empty
        : new ReadOnlySequence<byte>(_first, _startIndex, _last!, _last!.Memory.Length);

    public void Append(ReadOnlySpan<byte> bytes)
    {
        while (!bytes.IsEmpty)
        {
            if (_last is null || _last.Manager.Length == _segmentSize)
            {
                var segment = new Segment(new CountingMemory(this, _segmentSize), _last is null ? 0 : _last.RunningIndex + _last.Memory.Length);
                if (_last is null)
                {
                    _first = segment;
                }
                else
                {
                    _last.SetNext(segment);
                }

                _last = segment;
            }

            int take = Math.Min(bytes.Length, _segmentSize - _last.Manager.Length);
            _last.Grow(bytes.Slice(0, take));
            bytes = bytes.Slice(take);
        }
    }

    /// <summary>Drops <paramref name="count"/> bytes from the front.</summary>
    public void Consume(long count)
    {
        SequencePosition position = Sequence.GetPosition(count);
        _first = (Segment?)position.GetObject() ?? _first;
        _startIndex = position.GetInteger();
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(CountingMemory manager, long runningIndex)
        {
            Manager = manager;
            RunningIndex = runningIndex;
            Memory = manager.Written;
        }

        public CountingMemory Manager { get; }

        public void SetNext(Segment next) => Next = next;

        public void Grow(ReadOnlySpan<byte> bytes)
        {
            Manager.Write(bytes);
            Memory = Manager.Written;
        }
    }

    /// <summary>A segment's bytes, counting every span taken of them (a span covers the bytes written so far).</summary>
    private sealed class CountingMemory(GrowingSequence owner, int capacity) : MemoryManager<byte>
    {
        private readonly byte[] _bytes = new byte[capacity];

        public int Length { get; private set; }

        /// <summary>The bytes written so far, as memory (made without taking a span, so not counted).</summary>
        public Memory<byte> Written => CreateMemory(Length);

        public void Write(ReadOnlySpan<byte> bytes)
        {
            bytes.CopyTo(_bytes.AsSpan(Length));
            Length += bytes.Length;
        }

        public override Span<byte> GetSpan()
        {
            owner.BytesRead += Length;
            return _bytes.AsSpan(0, Length);
        }

        public override MemoryHandle Pin(int elementIndex = 0) => throw new NotSupportedException("Only spans are read.");

        public override void Unpin()
        {
        }

        protected override void Dispose(bool disposing)
        {
        }
    }
}
