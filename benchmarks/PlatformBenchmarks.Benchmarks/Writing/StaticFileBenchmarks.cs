using System.IO.Pipelines;
using BenchmarkDotNet.Attributes;
using Microsoft.Win32.SafeHandles;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Benchmarks.Writing;

/// <summary>
/// How /static/ should find a file's bytes per request (docs/decisions/0004-static-files-in-memory.md): held in memory
/// and copied into the connection's pipe (what the server does), against reading the file per request straight into
/// the pipe's blocks (a lower bound of that path: the head composed with the length known, then one read per block),
/// and against reading it whole per request and then copying it (the naive path). Sizes of the venue's smallest text
/// file (reset.css, 8 KiB) and largest (vendor.js, 300 KiB); the file is in the page cache, as a hot one is. A real
/// <see cref="Pipe"/> of 4 KiB blocks, drained after each response as the transport's send would.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Writing)]
public class StaticFileBenchmarks : IDisposable
{
    private readonly DateHeader _date = new(TimeProvider.System);
    private readonly Pipe _pipe = new(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
    private static readonly ResponseFields s_vary = new(("Vary", "Accept-Encoding"));

    private Http1Response _response = null!;
    private RequestHead _get;
    private RequestHead _head;
    private string _path = "";
    private byte[] _held = [];
    private byte[] _lengthOnly = [];

    [Params(8 * 1024, 300 * 1024)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _path = Path.Join(Path.GetTempPath(), $"pb-static-bench-{Environment.ProcessId}-{Size}.js");
        var random = new Random(42);
        _held = new byte[Size];
        random.NextBytes(_held);
        File.WriteAllBytes(_path, _held);
        _lengthOnly = new byte[Size];
        _get = Responses.KeepAliveGet();
        _head = Responses.KeepAliveGet();
        _head.Method = HttpMethod.Head;
        _response = new Http1Response(_pipe.Writer, _date);

        long held = HeldInMemory();
        FixtureCheck.That(held == ReadPerRequestIntoThePipe(), "both paths write responses of the same length");
        FixtureCheck.That(held == ReadWholePerRequestThenCopy(), "the naive path writes a response of the same length");
        FixtureCheck.That(held > Size, "the response holds the whole file");
    }

    [GlobalCleanup]
    public void Cleanup() => File.Delete(_path);

    /// <summary>What the server does: the held bytes copied behind the head.</summary>
    [Benchmark(Baseline = true)]
    public long HeldInMemory()
    {
        _response.Reset(in _get);
        _response.Write(HttpStatus.Ok, "text/javascript; charset=utf-8"u8, _held, s_vary);
        return Drain();
    }

    /// <summary>The lower bound of reading per request: open, size, the head, then the file read into the pipe's blocks.</summary>
    [Benchmark]
    public long ReadPerRequestIntoThePipe()
    {
        using SafeFileHandle file = File.OpenHandle(_path);
        long length = RandomAccess.GetLength(file);
        _response.Reset(in _head);
        _response.Write(HttpStatus.Ok, "text/javascript; charset=utf-8"u8, _lengthOnly.AsSpan(0, (int)length), s_vary);
        long offset = 0;
        while (offset < length)
        {
            Span<byte> span = _pipe.Writer.GetSpan(4096);
            int read = RandomAccess.Read(file, span[..(int)Math.Min(span.Length, length - offset)], offset);
            _pipe.Writer.Advance(read);
            offset += read;
        }

        return Drain();
    }

    /// <summary>The naive path: the whole file read into a new array per request, then copied behind the head.</summary>
    [Benchmark]
    public long ReadWholePerRequestThenCopy()
    {
        byte[] content = File.ReadAllBytes(_path);
        _response.Reset(in _get);
        _response.Write(HttpStatus.Ok, "text/javascript; charset=utf-8"u8, content, s_vary);
        return Drain();
    }

    public void Dispose()
    {
        _date.Dispose();
        GC.SuppressFinalize(this);
    }

    /// <summary>Flushes and reads everything written, returning the blocks to the pool as a send would.</summary>
    private long Drain()
    {
        // No pause threshold: the flush completes at once.
        ValueTask<FlushResult> flush = _pipe.Writer.FlushAsync();
        if (!flush.IsCompletedSuccessfully || !_pipe.Reader.TryRead(out ReadResult result))
        {
            throw new InvalidOperationException("The flushed response did not reach the reader.");
        }

        long length = result.Buffer.Length;
        _pipe.Reader.AdvanceTo(result.Buffer.End);
        return length;
    }
}
