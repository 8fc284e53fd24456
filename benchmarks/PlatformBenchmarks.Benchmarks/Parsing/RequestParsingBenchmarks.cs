using System.Buffers;
using System.Text;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Http;
using KestrelHttp = Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http;

namespace PlatformBenchmarks.Benchmarks.Parsing;

/// <summary>
/// Parsing one request head: this engine's <see cref="HttpParser"/> against Kestrel's <c>HttpParser&lt;T&gt;</c>
/// (the baseline) on the same bytes, so the Ratio column reads "our time / Kestrel's time" for each fixture.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Parsing)]
public class RequestParsingBenchmarks
{
    private readonly HttpParser _parser = new(new HttpLimits());
    private readonly KestrelHttp.HttpParser<KestrelRequestHandler> _kestrel = new();
    private readonly KestrelParseRecord _record = new();
    private KestrelRequestHandler _handler;
    private ReadOnlySequence<byte> _buffer;

    [Params(RequestKind.Plaintext, RequestKind.Json, RequestKind.Browser)]
    public RequestKind Request { get; set; }

    [Params(BufferLayout.SingleSegment, BufferLayout.MultiSegment)]
    public BufferLayout Layout { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        RequestFixture fixture = Requests.Get(Request);
        _buffer = fixture.ToSequence(Layout);
        _handler = new KestrelRequestHandler(_record);
        FixtureCheck.That(_buffer.IsSingleSegment == (Layout == BufferLayout.SingleSegment), $"{fixture.Name} is laid out as {Layout}");

        ParserChecks.Ours(_parser, _buffer, fixture);
        ParserChecks.Kestrel(_kestrel, _handler, _record, _buffer, fixture);
    }

    [Benchmark(Baseline = true)]
    public int Kestrel()
    {
        var reader = new SequenceReader<byte>(_buffer);
        if (!_kestrel.ParseRequestLine(_handler, ref reader) || !_kestrel.ParseHeaders(_handler, ref reader))
        {
            return -1;
        }

        return (int)reader.Consumed;
    }

    [Benchmark]
    public int Ours()
    {
        ParseStatus status = _parser.TryParseHead(_buffer, out RequestHead head, out _, out int consumed, out _);
        return status == ParseStatus.Complete ? consumed + head.HeaderCount : -1;
    }
}

/// <summary>
/// Parsing wrk's 16-deep pipelined plaintext batch, head after head, as the connection loop does for one read.
/// Reported per request.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Parsing)]
public class PipelinedParsingBenchmarks
{
    private readonly HttpParser _parser = new(new HttpLimits());
    private readonly KestrelHttp.HttpParser<KestrelRequestHandler> _kestrel = new();
    private readonly KestrelParseRecord _record = new();
    private KestrelRequestHandler _handler;
    private ReadOnlySequence<byte> _buffer;

    [Params(BufferLayout.SingleSegment, BufferLayout.MultiSegment)]
    public BufferLayout Layout { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        RequestFixture fixture = Requests.PipelinedPlaintext;
        _buffer = fixture.ToSequence(Layout);
        _handler = new KestrelRequestHandler(_record);
        FixtureCheck.That(_buffer.IsSingleSegment == (Layout == BufferLayout.SingleSegment), $"{fixture.Name} is laid out as {Layout}");

        ParserChecks.Ours(_parser, _buffer, fixture);
        ParserChecks.Kestrel(_kestrel, _handler, _record, _buffer, fixture);
        FixtureCheck.That(Ours() == fixture.Bytes.Length && Kestrel() == fixture.Bytes.Length, "both parsers consume the whole batch");
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Requests.PipelineDepth)]
    public int Kestrel()
    {
        var reader = new SequenceReader<byte>(_buffer);
        for (int i = 0; i < Requests.PipelineDepth; i++)
        {
            if (!_kestrel.ParseRequestLine(_handler, ref reader) || !_kestrel.ParseHeaders(_handler, ref reader))
            {
                return -1;
            }
        }

        return (int)reader.Consumed;
    }

    [Benchmark(OperationsPerInvoke = Requests.PipelineDepth)]
    public int Ours()
    {
        ReadOnlySequence<byte> buffer = _buffer;
        int total = 0;
        for (int i = 0; i < Requests.PipelineDepth; i++)
        {
            if (_parser.TryParseHead(buffer, out _, out _, out int consumed, out _) != ParseStatus.Complete)
            {
                return -1;
            }

            // As the connection loop does: the next head starts where this one ended.
            buffer = buffer.Slice(consumed);
            total += consumed;
        }

        return total;
    }
}

/// <summary>The set-up checks both parsing benchmarks run: each parser, on the fixture, finds every request complete and right.</summary>
internal static class ParserChecks
{
    public static void Ours(HttpParser parser, ReadOnlySequence<byte> buffer, RequestFixture fixture)
    {
        for (int i = 0; i < fixture.RequestCount; i++)
        {
            ParseStatus status = parser.TryParseHead(buffer, out RequestHead head, out ReadOnlySpan<byte> headBytes, out int consumed, out RequestRejection rejection);
            string where = $"our parser, {fixture.Name} request {i + 1}";
            FixtureCheck.That(status == ParseStatus.Complete, $"{where}: status {status} ({rejection})");
            var request = new HttpRequest(headBytes, in head);
            FixtureCheck.That(request.Method == HttpMethod.Get && request.Version == HttpVersion.Http11 && request.KeepAlive, $"{where}: GET HTTP/1.1 keep-alive");
            FixtureCheck.That(request.Path.SequenceEqual(Encoding.ASCII.GetBytes(fixture.Path)), $"{where}: path {Encoding.ASCII.GetString(request.Path)}");
            FixtureCheck.That(head.HeaderCount == fixture.HeaderCount, $"{where}: {head.HeaderCount} header fields");
            FixtureCheck.That(consumed == fixture.Bytes.Length / fixture.RequestCount, $"{where}: consumed {consumed} bytes");
            buffer = buffer.Slice(consumed);
        }

        FixtureCheck.That(buffer.IsEmpty, $"our parser, {fixture.Name}: every byte parsed");
    }

    public static void Kestrel(
        KestrelHttp.HttpParser<KestrelRequestHandler> parser,
        KestrelRequestHandler handler,
        KestrelParseRecord record,
        ReadOnlySequence<byte> buffer,
        RequestFixture fixture)
    {
        var reader = new SequenceReader<byte>(buffer);
        record.CapturePath = true;
        try
        {
            for (int i = 0; i < fixture.RequestCount; i++)
            {
                string where = $"Kestrel's parser, {fixture.Name} request {i + 1}";
                long start = reader.Consumed;
                FixtureCheck.That(parser.ParseRequestLine(handler, ref reader), $"{where}: request line complete");
                FixtureCheck.That(parser.ParseHeaders(handler, ref reader) && record.HeadersComplete, $"{where}: headers complete");
                FixtureCheck.That(record.Method == KestrelHttp.HttpMethod.Get && record.Version == KestrelHttp.HttpVersion.Http11, $"{where}: GET HTTP/1.1");
                FixtureCheck.That(record.Path == fixture.Path, $"{where}: path {record.Path}");
                FixtureCheck.That(record.HeaderCount == fixture.HeaderCount, $"{where}: {record.HeaderCount} header fields");
                FixtureCheck.That(reader.Consumed - start == fixture.Bytes.Length / fixture.RequestCount, $"{where}: consumed {reader.Consumed - start} bytes");
            }

            FixtureCheck.That(reader.End, $"Kestrel's parser, {fixture.Name}: every byte parsed");
        }
        finally
        {
            record.CapturePath = false;
        }
    }
}
