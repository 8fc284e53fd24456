using System.Buffers;
using System.Text.Json;
using System.Text.Json.Serialization;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Benchmarks.Serialization;

/// <summary>
/// HttpArena's <c>/json/{count}?m=</c> body, written into a reused <see cref="Utf8JsonWriter"/>: the route's
/// <see cref="ItemsJson"/> (member by member, no allocation) against the source-generated serializer over item objects
/// built per request with their total, as a framework's handler builds them (the baseline). Counts are the venue's
/// json-compressed ones (25, 40, 50) and its smallest (1); both write the same bytes.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Serialization)]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The writer holds only managed buffers; GlobalCleanup disposes it.")]
public class ArenaJsonBenchmarks
{
    private const long Multiplier = 6;

    private readonly ArrayBufferWriter<byte> _buffer = new(64 * 1024);
    private Utf8JsonWriter _writer = null!;
    private DatasetItem[] _items = [];

    [Params(1, 25, 40, 50)]
    public int Count { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _writer = new Utf8JsonWriter(_buffer, new JsonWriterOptions { SkipValidation = true });
        _items = ArenaItems.Load().Items;
        SourceGenerated();
        byte[] expected = _buffer.WrittenSpan.ToArray();
        Writer();
        FixtureCheck.That(_buffer.WrittenSpan.SequenceEqual(expected), "both write the same body");
        FixtureCheck.That(JsonDocument.Parse(expected).RootElement.GetProperty("count").GetInt32() == Count, "the body says its count");
    }

    [GlobalCleanup]
    public void Cleanup() => _writer.Dispose();

    [Benchmark(Baseline = true)]
    public int SourceGenerated()
    {
        Reset();
        var items = new ArenaItem[Count];
        for (int i = 0; i < items.Length; i++)
        {
            DatasetItem item = _items[i];
            items[i] = new ArenaItem(item.Id, item.Name, item.Category, item.Price, item.Quantity, item.Active, item.Tags, new ArenaRating(item.Rating.Score, item.Rating.Count), item.Price * item.Quantity * Multiplier);
        }

        JsonSerializer.Serialize(_writer, new ArenaResponse(items, items.Length), ArenaJsonContext.Default.ArenaResponse);
        _writer.Flush();
        return _buffer.WrittenCount;
    }

    [Benchmark]
    public int Writer()
    {
        Reset();
        ItemsJson.Write(_writer, _items.AsSpan(0, Count), Multiplier);
        _writer.Flush();
        return _buffer.WrittenCount;
    }

    private void Reset()
    {
        _buffer.ResetWrittenCount();
        _writer.Reset(_buffer);
    }
}

[System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1819", Justification = "The shape a handler would serialise.")]
public sealed record ArenaResponse(ArenaItem[] Items, int Count);

[System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1819", Justification = "The shape a handler would serialise.")]
public sealed record ArenaItem(long Id, string Name, string Category, long Price, long Quantity, bool Active, string[] Tags, ArenaRating Rating, long Total);

public sealed record ArenaRating(long Score, long Count);

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, GenerationMode = JsonSourceGenerationMode.Serialization)]
[JsonSerializable(typeof(ArenaResponse))]
internal sealed partial class ArenaJsonContext : JsonSerializerContext;
