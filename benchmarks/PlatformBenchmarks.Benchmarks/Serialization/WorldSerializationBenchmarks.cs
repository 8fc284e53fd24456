using System.Buffers;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Benchmarks.Serialization;

/// <summary>
/// Serialising World rows as the db, queries, updates and cached tests do, into a reused <see cref="Utf8JsonWriter"/>:
/// <see cref="WorldJson"/> (source-generated metadata) against reflection-based <see cref="JsonSerializer"/> with
/// camelCase naming as the baseline, so both write the same bytes. Arrays of 1, 20 and 500 rows (queries, updates,
/// cached); the single object of the db test is <see cref="SingleWorldSerializationBenchmarks"/>.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Serialization)]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The writer holds only managed buffers; GlobalCleanup disposes it.")]
public class WorldSerializationBenchmarks
{
    private static readonly JsonSerializerOptions s_reflectionOptions = new() { PropertyNamingPolicy = JsonNamingPolicy.CamelCase };

    private readonly ArrayBufferWriter<byte> _buffer = new(32 * 1024);
    private Utf8JsonWriter _writer = null!;
    private World[] _worlds = [];

    [Params(1, 20, 500)]
    public int Count { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _writer = new Utf8JsonWriter(_buffer, new JsonWriterOptions { SkipValidation = true });
        var random = new Random(42);
        _worlds = Enumerable.Range(0, Count).Select(_ => new World(random.Next(1, 10001), random.Next(1, 10001))).ToArray();

        ReflectionArray();
        byte[] expected = _buffer.WrittenSpan.ToArray();
        SourceGeneratedArray();
        FixtureCheck.That(_buffer.WrittenSpan.SequenceEqual(expected), "both serializers write the same World array");
        FixtureCheck.That(expected.AsSpan().IndexOf("\"randomNumber\":"u8) > 0, "the key is randomNumber");
    }

    [GlobalCleanup]
    public void Cleanup() => _writer.Dispose();

    [Benchmark(Baseline = true)]
    public int ReflectionArray()
    {
        Reset();
        JsonSerializer.Serialize(_writer, _worlds, s_reflectionOptions);
        _writer.Flush();
        return _buffer.WrittenCount;
    }

    [Benchmark]
    public int SourceGeneratedArray()
    {
        Reset();
        WorldJson.Write(_writer, _worlds);
        _writer.Flush();
        return _buffer.WrittenCount;
    }

    private void Reset()
    {
        _buffer.ResetWrittenCount();
        _writer.Reset(_buffer);
    }
}

/// <summary>The db test's single World object, source-generated against reflection as in <see cref="WorldSerializationBenchmarks"/>.</summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Serialization)]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The writer holds only managed buffers; GlobalCleanup disposes it.")]
public class SingleWorldSerializationBenchmarks
{
    private static readonly JsonSerializerOptions s_reflectionOptions = new() { PropertyNamingPolicy = JsonNamingPolicy.CamelCase };

    private readonly ArrayBufferWriter<byte> _buffer = new(256);
    private readonly World _world = new(3217, 2149);
    private Utf8JsonWriter _writer = null!;

    [GlobalSetup]
    public void Setup()
    {
        _writer = new Utf8JsonWriter(_buffer, new JsonWriterOptions { SkipValidation = true });
        Reflection();
        FixtureCheck.That(_buffer.WrittenSpan.SequenceEqual("{\"id\":3217,\"randomNumber\":2149}"u8), "reflection writes TFB's World object");
        SourceGenerated();
        FixtureCheck.That(_buffer.WrittenSpan.SequenceEqual("{\"id\":3217,\"randomNumber\":2149}"u8), "WorldJson writes TFB's World object");
    }

    [GlobalCleanup]
    public void Cleanup() => _writer.Dispose();

    [Benchmark(Baseline = true)]
    public int Reflection()
    {
        _buffer.ResetWrittenCount();
        _writer.Reset(_buffer);
        JsonSerializer.Serialize(_writer, _world, s_reflectionOptions);
        _writer.Flush();
        return _buffer.WrittenCount;
    }

    [Benchmark]
    public int SourceGenerated()
    {
        _buffer.ResetWrittenCount();
        _writer.Reset(_buffer);
        WorldJson.Write(_writer, _world);
        _writer.Flush();
        return _buffer.WrittenCount;
    }
}
