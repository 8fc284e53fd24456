using System.Buffers;
using System.Text;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Benchmarks.Parsing;

/// <summary>
/// One 30,000-byte head (a GET with one long field) that arrives a byte per read: the parser is called with the
/// buffer one byte longer each time, the same start, in segments of one transport block (4 KiB) as the pipe holds it,
/// until the head is complete. Reported per head; a parse that starts again on every call grows with the square of
/// the head's size, one that resumes, linearly.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Parsing)]
public class TrickledHeadParsingBenchmarks
{
    private const int HeadSize = 30_000;
    private const int BlockSize = 4096;

    private readonly HttpParser _parser = new(new HttpLimits());
    private ReadOnlySequence<byte>[] _reads = [];

    [GlobalSetup]
    public void Setup()
    {
        string start = "GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\nX-Long: ";
        byte[] bytes = Encoding.ASCII.GetBytes(start + new string('a', HeadSize - start.Length - 4) + "\r\n\r\n");
        int[] blocks = [.. Enumerable.Range(1, (HeadSize - 1) / BlockSize).Select(i => i * BlockSize)];
        ReadOnlySequence<byte> whole = SegmentedSequence.Create(bytes, blocks);

        // The buffer as each read leaves it: the first n bytes, over the same segments.
        _reads = [.. Enumerable.Range(1, HeadSize).Select(n => whole.Slice(0, n))];
        FixtureCheck.That(Ours() == HeadSize, "the head is complete at its last byte, and not before");
    }

    [Benchmark]
    public int Ours()
    {
        ReadOnlySequence<byte>[] reads = _reads;
        for (int i = 0; i < reads.Length; i++)
        {
            ParseStatus status = _parser.TryParseHead(reads[i], out _, out _, out int consumed, out _);
            if (status != ParseStatus.Incomplete)
            {
                _parser.ReleaseScratch();
                return status == ParseStatus.Complete && i == reads.Length - 1 ? consumed : -1;
            }
        }

        return -1;
    }
}
