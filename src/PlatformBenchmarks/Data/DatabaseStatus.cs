namespace PlatformBenchmarks.Data;

/// <summary>The outcome of a start-up probe, for the banner: whether the database answered, and a one-line description.</summary>
internal readonly record struct DatabaseStatus(bool IsAvailable, string Description);
