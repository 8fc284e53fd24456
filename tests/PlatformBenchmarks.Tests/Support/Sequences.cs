using System.Buffers;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>Builds multi-segment sequences, so tests can split input at any byte.</summary>
internal static class Sequences
{
    public static ReadOnlySequence<byte> Split(byte[] data, params int[] points)
    {
        if (points.Length == 0)
        {
            return new ReadOnlySequence<byte>(data);
        }

        Segment? first = null;
        Segment? last = null;
        int start = 0;
        foreach (int point in points.Append(data.Length))
        {
            // Each segment gets its own array, as separate socket reads would.
            var memory = new ReadOnlyMemory<byte>(data.AsSpan(start, point - start).ToArray());
            if (first is null)
            {
                first = last = new Segment(memory, 0);
            }
            else
            {
                last = last!.Append(memory);
            }

            start = point;
        }

        return new ReadOnlySequence<byte>(first!, 0, last!, last!.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}
