using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Benchmarks.Fixtures;

/// <summary>
/// Items for the HttpArena benchmarks: the venue's dataset file when <c>PB_ARENA_DATASET</c> names it (the recorded
/// runs do), else 50 generated items of the same shape: short names from a few words, a handful of categories and tags.
/// </summary>
internal static class ArenaItems
{
    public const string DatasetVariable = "PB_ARENA_DATASET";

    private static readonly string[] s_words = ["Alpha", "Pro", "Core", "Ultra", "Nano", "Smart", "Widget", "Valve", "Relay", "Sensor", "Module", "Gear"];
    private static readonly string[] s_categories = ["electronics", "tools", "books", "garden", "toys", "sports"];
    private static readonly string[] s_tags = ["sale", "new", "fast", "eco", "popular", "limited", "wireless", "heavy-duty"];

    public static Dataset Load()
    {
        string? path = Environment.GetEnvironmentVariable(DatasetVariable);
        Dataset dataset = string.IsNullOrEmpty(path) ? Dataset.From(Generate(50), "generated") : Dataset.Load(path);
        FixtureCheck.That(dataset.IsAvailable && dataset.Items.Length == 50, $"the dataset has 50 items ({dataset.Description})");
        return dataset;
    }

    private static DatasetItem[] Generate(int count)
    {
        var random = new Random(42);
        return [.. Enumerable.Range(1, count).Select(id => new DatasetItem
        {
            Id = id,
            Name = $"{s_words[random.Next(6)]} {s_words[6 + random.Next(6)]}",
            Category = s_categories[random.Next(s_categories.Length)],
            Price = random.Next(1, 500),
            Quantity = random.Next(0, 100),
            Active = random.Next(4) != 0,
            Tags = [.. s_tags.OrderBy(_ => random.Next()).Take(random.Next(1, 5))],
            Rating = new DatasetRating { Score = random.Next(1, 51), Count = random.Next(0, 500) },
        })];
    }
}
