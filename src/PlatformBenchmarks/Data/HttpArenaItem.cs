namespace PlatformBenchmarks.Data;

/// <summary>
/// A row of HttpArena's <c>items</c> table (its async-database profile). <see cref="Tags"/> is the row's jsonb array as
/// PostgreSQL renders it, JSON text ready to be written as it is.
/// </summary>
internal readonly record struct HttpArenaItem(int Id, string Name, string Category, int Price, int Quantity, bool Active, string Tags, int RatingScore, int RatingCount)
{
    /// <summary>The most rows one async-db request asks for (the venue clamps its limit to 1..50).</summary>
    public const int MaxPerRequest = 50;
}
