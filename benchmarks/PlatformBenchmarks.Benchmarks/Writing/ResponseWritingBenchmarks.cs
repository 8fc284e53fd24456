using System.Buffers;
using System.Buffers.Text;
using System.IO.Pipelines;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Benchmarks.Writing;

/// <summary>
/// Composing responses: the status line and fields from their preformatted parts, the Date, Content-Length, and
/// the body, into a <see cref="PipeWriter"/>. Most write into a writer that reuses one buffer, which isolates the
/// composing; <see cref="PlaintextPipelinedIntoPipe"/> writes a pipelined batch into a real <see cref="Pipe"/> and
/// drains it, as the connection loop does once per read.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Writing)]
public class ResponseWritingBenchmarks : IDisposable
{
    private readonly ReusedBufferPipeWriter _sink = new();
    private readonly Pipe _pipe = new(new PipeOptions(
        readerScheduler: PipeScheduler.Inline,
        writerScheduler: PipeScheduler.Inline,
        useSynchronizationContext: false));

    private readonly byte[] _dateCopy = new byte[64];
    private readonly DateHeader _date = new(TimeProvider.System);
    private Http1Response _sinkResponse = null!;
    private Http1Response _pipeResponse = null!;

    [GlobalSetup]
    public void Setup()
    {
        RequestHead head = Responses.KeepAliveGet();
        _sinkResponse = new Http1Response(_sink, _date);
        _sinkResponse.Reset(in head);
        _pipeResponse = new Http1Response(_pipe.Writer, _date);
        _pipeResponse.Reset(in head);

        PlaintextResponse();
        Responses.CheckOk(_sink.LastWritten, "text/plain"u8, Responses.PlaintextBody, "Plaintext.Write");
        JsonResponse();
        Responses.CheckOk(_sink.LastWritten, MediaTypes.Json, Responses.JsonBody, "Json.Write");

        // Drain into a copy this once, to check the batch the measured runs throw away.
        for (int i = 0; i < Requests.PipelineDepth; i++)
        {
            Plaintext.Write(_pipeResponse);
        }

        FlushSynchronously();
        FixtureCheck.That(_pipe.Reader.TryRead(out ReadResult result), "the pipe has the batch");
        byte[] batch = result.Buffer.ToArray();
        _pipe.Reader.AdvanceTo(result.Buffer.End);
        Responses.CheckRepeatedOk(batch, Requests.PipelineDepth, "text/plain"u8, Responses.PlaintextBody, "16 pipelined Plaintext.Write");

        FixtureCheck.That(DateHeaderCopy() == 29, "the Date value is an IMF-fixdate");
    }

    /// <summary>The whole plaintext response: <c>Plaintext.Write</c>, that is <c>HttpResponse.Write</c> with a constant body.</summary>
    [Benchmark]
    public int PlaintextResponse()
    {
        Plaintext.Write(_sinkResponse);
        return _sink.LastWrittenCount;
    }

    /// <summary>The whole json response: <c>Json.Write</c>, a new object serialised per response, then composed.</summary>
    [Benchmark]
    public int JsonResponse()
    {
        Json.Write(_sinkResponse);
        return _sink.LastWrittenCount;
    }

    /// <summary>16 plaintext responses into a real pipe, one flush, then the reader takes them all. Reported per response.</summary>
    [Benchmark(OperationsPerInvoke = Requests.PipelineDepth)]
    public long PlaintextPipelinedIntoPipe()
    {
        for (int i = 0; i < Requests.PipelineDepth; i++)
        {
            Plaintext.Write(_pipeResponse);
        }

        FlushSynchronously();
        if (!_pipe.Reader.TryRead(out ReadResult result))
        {
            throw new InvalidOperationException("The flushed responses did not reach the reader.");
        }

        long length = result.Buffer.Length;
        _pipe.Reader.AdvanceTo(result.Buffer.End);
        return length;
    }

    private void FlushSynchronously()
    {
        // Inline schedulers, and a batch far below the pause threshold: the flush completes at once.
        ValueTask<FlushResult> flush = _pipe.Writer.FlushAsync();
        if (!flush.IsCompletedSuccessfully)
        {
            throw new InvalidOperationException("The flush did not complete synchronously.");
        }

        _ = flush.Result;
    }

    /// <summary>Copying the cached Date value, as each response does.</summary>
    [Benchmark]
    public int DateHeaderCopy()
    {
        ReadOnlySpan<byte> date = _date.Value;
        date.CopyTo(_dateCopy);
        return date.Length;
    }

    public void Dispose()
    {
        _date.Dispose();
        GC.SuppressFinalize(this);
    }
}

/// <summary>
/// Formatting the Content-Length value: the engine's digit writer (count the digits, then fill them in from the
/// right) against <see cref="Utf8Formatter"/> as the baseline, for the plaintext, json and a fortunes-sized body.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Writing)]
public class ContentLengthFormattingBenchmarks
{
    private readonly byte[] _buffer = new byte[16];

    [Params(13, 27, 1187)]
    public int Length { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        int written = Engine();
        string ours = System.Text.Encoding.ASCII.GetString(_buffer, 0, written);
        FixtureCheck.That(ours == Length.ToString(System.Globalization.CultureInfo.InvariantCulture), $"the engine formats {Length} as {ours}");
        FixtureCheck.That(Utf8FormatterTryFormat() == written, "both write the same number of digits");
    }

    [Benchmark(Baseline = true)]
    public int Utf8FormatterTryFormat()
    {
        Utf8Formatter.TryFormat((uint)Length, _buffer, out int written);
        return written;
    }

    [Benchmark]
    public int Engine()
    {
        uint value = (uint)Length;
        int digits = Http1Response.CountDigits(value);
        var writer = new Http1Response.SpanWriter(_buffer);
        writer.WriteDigits(value, digits);
        return writer.Position;
    }
}
