using System.Buffers;

namespace PlatformBenchmarks.Benchmarks.Fixtures;

/// <summary>Builds a multi-segment <see cref="ReadOnlySequence{T}"/>, as a pipe hands out data that arrived across buffers.</summary>
internal static class SegmentedSequence
{
    /// <summary>
    /// Cuts <paramref name="bytes"/> at each of <paramref name="splitPoints"/> (strictly increasing offsets inside
    /// the array). Each segment gets its own array, so no segment is contiguous with the next in memory: a parser
    /// cannot get away with reading past the end of one.
    /// </summary>
    public static ReadOnlySequence<byte> Create(ReadOnlySpan<byte> bytes, ReadOnlySpan<int> splitPoints)
    {
        FixtureCheck.That(!splitPoints.IsEmpty, "at least one split point");
        Segment? first = null;
        Segment? last = null;
        int start = 0;
        for (int i = 0; i <= splitPoints.Length; i++)
        {
            int end = i < splitPoints.Length ? splitPoints[i] : bytes.Length;
            FixtureCheck.That(end > start && end <= bytes.Length, $"split point {end} must be after {start} and inside {bytes.Length} bytes");
            byte[] chunk = bytes[start..end].ToArray();
            last = last is null ? (first = new Segment(chunk, runningIndex: 0)) : last.Append(chunk);
            start = end;
        }

        return new ReadOnlySequence<byte>(first!, 0, last!, last!.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(byte[] data, long runningIndex)
        {
            Memory = data;
            RunningIndex = runningIndex;
        }

        public Segment Append(byte[] data)
        {
            var next = new Segment(data, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}
