using System.Buffers;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Endpoints;

namespace PlatformBenchmarks.Benchmarks.Serialization;

/// <summary>
/// Serialising the TFB json message into a reused <see cref="Utf8JsonWriter"/>, as <c>Json.Write</c> does: the
/// source-generated <see cref="MessageJsonContext"/> against reflection-based <see cref="JsonSerializer"/> as the
/// baseline. The baseline's options are the defaults except camelCase naming, so both write the same 27 bytes.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Serialization)]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The writer holds only managed buffers; GlobalCleanup disposes it.")]
public class JsonSerializationBenchmarks
{
    private static readonly JsonSerializerOptions s_reflectionOptions = new() { PropertyNamingPolicy = JsonNamingPolicy.CamelCase };

    private readonly ArrayBufferWriter<byte> _buffer = new(256);
    private Utf8JsonWriter _writer = null!;

    [GlobalSetup]
    public void Setup()
    {
        _writer = new Utf8JsonWriter(_buffer, new JsonWriterOptions { SkipValidation = true });
        Reflection();
        FixtureCheck.That(_buffer.WrittenSpan.SequenceEqual(Responses.JsonBody), "reflection serialization writes the TFB message");
        SourceGenerated();
        FixtureCheck.That(_buffer.WrittenSpan.SequenceEqual(Responses.JsonBody), "source-generated serialization writes the TFB message");
    }

    [GlobalCleanup]
    public void Cleanup() => _writer.Dispose();

    [Benchmark(Baseline = true)]
    public int Reflection()
    {
        _buffer.ResetWrittenCount();
        _writer.Reset(_buffer);
        JsonSerializer.Serialize(_writer, new JsonMessage("Hello, World!"), s_reflectionOptions);
        _writer.Flush();
        return _buffer.WrittenCount;
    }

    [Benchmark]
    public int SourceGenerated()
    {
        _buffer.ResetWrittenCount();
        _writer.Reset(_buffer);
        JsonSerializer.Serialize(_writer, new JsonMessage("Hello, World!"), MessageJsonContext.Default.JsonMessage);
        _writer.Flush();
        return _buffer.WrittenCount;
    }
}
