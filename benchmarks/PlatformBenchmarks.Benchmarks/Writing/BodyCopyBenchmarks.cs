using System.Buffers;
using System.IO.Pipelines;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Benchmarks.Writing;

/// <summary>
/// Whether writing a JSON body straight into the pipe would pay: a World array (20 rows, as /queries/20; 100 rows, as
/// /cached-worlds/100, past the 3 KiB one-span threshold) answered as the server does (serialised into the response's
/// body buffer, then the head composed and the body copied behind it), against a lower bound of the alternative:
/// the same head composed with the length known in advance, then the body serialised straight into the same writer,
/// with no copy and no length to fill in afterwards. Their difference is the most the straight path could save.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Writing)]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The writers hold only managed buffers; GlobalCleanup disposes them.")]
public class BodyCopyBenchmarks
{
    private readonly AppendingPipeWriter _sink = new();
    private readonly DateHeader _date = new(TimeProvider.System);
    private Http1Response _response = null!;
    private Utf8JsonWriter _direct = null!;
    private World[] _worlds = [];
    private byte[] _lengthOnly = [];
    private RequestHead _get;
    private RequestHead _head;

    [Params(20, 100)]
    public int Rows { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        var random = new Random(42);
        _worlds = [.. Enumerable.Range(0, Rows).Select(_ => new World(random.Next(1, 10001), random.Next(1, 10001)))];
        _get = Responses.KeepAliveGet();
        // HEAD gets the same fields as GET, Content-Length included, and no body: the engine's own way to compose a
        // head alone.
        _head = Responses.KeepAliveGet();
        _head.Method = HttpMethod.Head;
        _response = new Http1Response(_sink, _date);
        _response.Reset(in _get);
        _direct = new Utf8JsonWriter(_sink, new JsonWriterOptions { SkipValidation = true });

        BufferedThenCopied();
        byte[] buffered = _sink.Written.ToArray();
        int bodyStart = buffered.AsSpan().IndexOf("\r\n\r\n"u8) + 4;
        _lengthOnly = new byte[buffered.Length - bodyStart];
        StraightIntoTheWriter();
        FixtureCheck.That(_sink.Written.SequenceEqual(buffered), "both paths write the same response");
        FixtureCheck.That(Rows < 100 || _lengthOnly.Length > 3 * 1024, "100 rows take the large-body path");
    }

    [GlobalCleanup]
    public void Cleanup() => _direct.Dispose();

    /// <summary>What the server does (WorldsResponse.Write): the body into the response's buffer, then head and copy.</summary>
    [Benchmark(Baseline = true)]
    public int BufferedThenCopied()
    {
        _sink.Reset();
        _response.Reset(in _get);
        WorldJson.Write(_response.StartJson(), _worlds);
        _response.WriteBuffered(HttpStatus.Ok, MediaTypes.Json);
        return _sink.Written.Length;
    }

    /// <summary>The lower bound of writing straight into the pipe: the head (its length known), then the body, no copy.</summary>
    [Benchmark]
    public int StraightIntoTheWriter()
    {
        _sink.Reset();
        _response.Reset(in _head);
        _response.Write(HttpStatus.Ok, MediaTypes.Json, _lengthOnly);
        _direct.Reset(_sink);
        WorldJson.Write(_direct, _worlds);
        _direct.Flush();
        return _sink.Written.Length;
    }

    /// <summary>A <see cref="PipeWriter"/> that keeps everything written since its last reset, in one growing array.</summary>
    private sealed class AppendingPipeWriter : PipeWriter
    {
        private readonly ArrayBufferWriter<byte> _buffer = new(16 * 1024);

        public ReadOnlySpan<byte> Written => _buffer.WrittenSpan;

        public void Reset() => _buffer.ResetWrittenCount();

        public override void Advance(int bytes) => _buffer.Advance(bytes);

        public override Memory<byte> GetMemory(int sizeHint = 0) => _buffer.GetMemory(sizeHint);

        public override Span<byte> GetSpan(int sizeHint = 0) => _buffer.GetSpan(sizeHint);

        public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default) => default;

        public override void CancelPendingFlush()
        {
        }

        public override void Complete(Exception? exception = null)
        {
        }
    }
}
