using System.Text.Json;
using System.Text.Json.Serialization;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// HttpArena's dataset: the items <c>/json/{count}</c> serves, read once at start-up from the venue's JSON file. A file
/// that is missing or not the venue's shape does not stop the server: the routes that need it answer 503 with
/// <see cref="Problem"/>, and the banner says so.
/// </summary>
internal sealed class Dataset
{
    private Dataset(DatasetItem[] items, string description, string? problem, long maxProduct)
    {
        Items = items;
        Description = description;
        Problem = problem;
        MaxProduct = maxProduct;
        Refusal = problem is null ? [] : System.Text.Encoding.UTF8.GetBytes($"The dataset is not loaded: {problem}\n");
    }

    public DatasetItem[] Items { get; }

    /// <summary>Whether the dataset was read: when not, <see cref="Problem"/> says why.</summary>
    public bool IsAvailable => Problem is null;

    /// <summary>Why the dataset could not be read; null when it was.</summary>
    public string? Problem { get; }

    /// <summary>The reason a 503 gives while the dataset is not loaded.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1819", Justification = "Written as a response body, never changed.")]
    public byte[] Refusal { get; }

    /// <summary>For the banner: how many items from where, or why none.</summary>
    public string Description { get; }

    /// <summary>The largest |price × quantity| of any item, so a multiplier that would overflow a total is refused beforehand.</summary>
    public long MaxProduct { get; }

    public static Dataset Load(string path)
    {
        try
        {
            using FileStream file = File.OpenRead(path);
            DatasetItem[] items = JsonSerializer.Deserialize(file, DatasetJsonContext.Default.DatasetItemArray)
                ?? throw new JsonException("The file holds null, not an array of items.");
            return From(items, $"{items.Length} items from {path}");
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or JsonException or NotSupportedException)
        {
            return Unavailable($"{path} could not be read: {exception.Message}");
        }
    }

    public static Dataset From(DatasetItem[] items, string description)
    {
        ArgumentNullException.ThrowIfNull(items);
        long maxProduct = 0;
        foreach (DatasetItem? item in items)
        {
            if (item is null)
            {
                return Unavailable($"{description}: an item is null");
            }

            try
            {
                maxProduct = Math.Max(maxProduct, Math.Abs(checked(item.Price * item.Quantity)));
            }
            catch (OverflowException)
            {
                return Unavailable($"{description}: the price times the quantity of item {item.Id} does not fit in 64 bits");
            }
        }

        return new Dataset(items, description, problem: null, maxProduct);
    }

    public static Dataset Unavailable(string problem) => new([], $"UNAVAILABLE (/json/{{count}} answers 503): {problem}", problem, maxProduct: 0);
}

/// <summary>One item of the dataset, as the venue's file holds it; every member is required.</summary>
internal sealed class DatasetItem
{
    public required long Id { get; init; }

    public required string Name { get; init; }

    public required string Category { get; init; }

    public required long Price { get; init; }

    public required long Quantity { get; init; }

    public required bool Active { get; init; }

    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1819", Justification = "Read-only data loaded once; an array is what the writer walks fastest.")]
    public required string[] Tags { get; init; }

    public required DatasetRating Rating { get; init; }

    /// <summary>
    /// The string members as the JSON writer's encoded text (UTF-8, escaped), made on first use and kept: every response
    /// still writes every member, but the same strings are not transcoded and escape-checked again for each one. HttpArena's
    /// json rules forbid pre-serialised responses; this keeps input values, not any part of a response
    /// (docs/decisions/0003-httparena-json-and-compression.md).
    /// </summary>
    [JsonIgnore]
    public DatasetItemText Text => _text ??= new DatasetItemText(this);

    // A reference, so that threads racing to make it each see a whole one.
    private DatasetItemText? _text;
}

/// <summary>An item's strings as <see cref="JsonEncodedText"/>, the form <see cref="Utf8JsonWriter"/> writes without re-encoding.</summary>
internal sealed class DatasetItemText
{
    public DatasetItemText(DatasetItem item)
    {
        Name = JsonEncodedText.Encode(item.Name);
        Category = JsonEncodedText.Encode(item.Category);
        Tags = [.. item.Tags.Select(tag => JsonEncodedText.Encode(tag))];
    }

    public JsonEncodedText Name { get; }

    public JsonEncodedText Category { get; }

    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1819", Justification = "Read-only data made once; an array is what the writer walks fastest.")]
    public JsonEncodedText[] Tags { get; }
}

internal sealed class DatasetRating
{
    public required long Score { get; init; }

    public required long Count { get; init; }
}

/// <summary>Source-generated metadata to read the dataset without reflection (the server is published with Native AOT).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, GenerationMode = JsonSourceGenerationMode.Metadata, RespectNullableAnnotations = true)]
[JsonSerializable(typeof(DatasetItem[]))]
internal sealed partial class DatasetJsonContext : JsonSerializerContext;
