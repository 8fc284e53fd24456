using System.Buffers;
using System.IO.Pipelines;
using BenchmarkDotNet.Attributes;
using Microsoft.Extensions.Logging.Abstractions;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Routing;

namespace PlatformBenchmarks.Benchmarks.EndToEnd;

/// <summary>
/// One <see cref="HttpConnection{TApp}"/> over the real <see cref="Router"/>, on an in-memory transport: request
/// bytes in, response bytes out, everything between (reading, parsing, routing, writing, flushing) is the engine's.
/// The connection stays open across all iterations, so the numbers are its steady state, reported per request.
/// </summary>
/// <remarks>
/// Both pipes schedule inline, so writing a batch into the input pipe runs the connection loop to completion on
/// the benchmark's thread: it measures the engine's CPU cost per request, without the thread-pool hops and
/// syscalls a socket adds.
/// </remarks>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.EndToEnd)]
public class ConnectionBenchmarks
{
    private Pipe _requests = null!;
    private Pipe _responses = null!;
    private Task _connection = null!;
    private byte[] _pipelined = null!;
    private byte[] _plaintext = null!;
    private byte[] _json = null!;
    private long _pipelinedResponseLength;
    private long _plaintextResponseLength;
    private long _jsonResponseLength;

    [GlobalSetup]
    public void Setup()
    {
        var options = new PipeOptions(
            readerScheduler: PipeScheduler.Inline,
            writerScheduler: PipeScheduler.Inline,
            useSynchronizationContext: false);
        _requests = new Pipe(options);
        _responses = new Pipe(options);
        var transport = new DuplexPipe(_requests.Reader, _responses.Writer);
        var connection = new HttpConnection<Router>(new Router(new RouteTable(new TfbRoutes(null!, null!))), transport, new HttpServerContext(new HttpLimits(), TimeProvider.System, new DateHeader(TimeProvider.System), NullLogger.Instance));

        // Runs up to the connection's first read, which waits for the first request.
        _connection = connection.ExecuteAsync();
        FixtureCheck.That(!_connection.IsCompleted, "the connection is waiting for requests");

        _pipelined = Requests.PipelinedPlaintext.Bytes;
        _plaintext = Requests.Plaintext.Bytes;
        _json = Requests.Json.Bytes;

        byte[] responses = Exchange(_pipelined);
        Responses.CheckRepeatedOk(responses, Requests.PipelineDepth, "text/plain"u8, Responses.PlaintextBody, "16 pipelined plaintext requests");
        _pipelinedResponseLength = responses.Length;

        responses = Exchange(_plaintext);
        Responses.CheckOk(responses, "text/plain"u8, Responses.PlaintextBody, "a plaintext request");
        _plaintextResponseLength = responses.Length;

        responses = Exchange(_json);
        Responses.CheckOk(responses, global::PlatformBenchmarks.Endpoints.MediaTypes.Json, Responses.JsonBody, "a json request");
        _jsonResponseLength = responses.Length;
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        // The end of the request stream ends the connection loop, which completes both of its pipe ends.
        _requests.Writer.Complete();
        _connection.GetAwaiter().GetResult();
        _responses.Reader.Complete();
    }

    /// <summary>wrk's pipelined plaintext: 16 requests in one write, 16 responses in one flush.</summary>
    [Benchmark(OperationsPerInvoke = Requests.PipelineDepth)]
    public long PlaintextPipelined() => RoundTrip(_pipelined, _pipelinedResponseLength);

    /// <summary>One plaintext request at a time, as during TFB's plaintext warm-up.</summary>
    [Benchmark]
    public long Plaintext() => RoundTrip(_plaintext, _plaintextResponseLength);

    /// <summary>TFB's json test: one request per write.</summary>
    [Benchmark]
    public long Json() => RoundTrip(_json, _jsonResponseLength);

    private long RoundTrip(byte[] request, long expectedLength)
    {
        Send(request);
        if (!_responses.Reader.TryRead(out ReadResult result))
        {
            throw new InvalidOperationException("The connection did not answer synchronously.");
        }

        long length = result.Buffer.Length;
        _responses.Reader.AdvanceTo(result.Buffer.End);
        if (length != expectedLength)
        {
            // The response's size never changes (the Date value is fixed-width), so any difference is a fault.
            throw new InvalidOperationException($"Expected {expectedLength} response bytes, got {length}.");
        }

        return length;
    }

    private void Send(byte[] request)
    {
        // With inline scheduling the connection reads, answers and flushes before WriteAsync returns.
        ValueTask<FlushResult> flush = _requests.Writer.WriteAsync(request);
        FlushResult result = flush.IsCompletedSuccessfully
            ? flush.Result
            : throw new InvalidOperationException("The request write did not complete synchronously.");
        if (result.IsCompleted)
        {
            throw new InvalidOperationException("The connection stopped reading.");
        }
    }

    private byte[] Exchange(byte[] request)
    {
        Send(request);
        FixtureCheck.That(_responses.Reader.TryRead(out ReadResult result), "the connection answered synchronously");
        byte[] bytes = result.Buffer.ToArray();
        _responses.Reader.AdvanceTo(result.Buffer.End);
        FixtureCheck.That(!_connection.IsCompleted, "the connection is still open");
        return bytes;
    }
}
