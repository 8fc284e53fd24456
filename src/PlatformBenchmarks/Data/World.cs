namespace PlatformBenchmarks.Data;

/// <summary>A row of the <c>world</c> table. Serialised as <c>{"id":…,"randomNumber":…}</c> (see <see cref="DataJsonContext"/>).</summary>
internal readonly record struct World(int Id, int RandomNumber)
{
    /// <summary>Ids run from 1 to 10000 in TFB's database (docs/tfb-rules.md §8).</summary>
    public const int MaxId = 10000;

    /// <summary>randomNumber values are 1..10000 (docs/tfb-rules.md §4.4; the verifier warns above 10000).</summary>
    public const int MaxRandomNumber = 10000;

    /// <summary>The fewest and most rows one request of the queries, updates and cached tests asks for (docs/tfb-rules.md §5).</summary>
    public const int MinPerRequest = 1;

    /// <inheritdoc cref="MinPerRequest"/>
    public const int MaxPerRequest = 500;

    public static int RandomId() => Random.Shared.Next(1, MaxId + 1);
}
