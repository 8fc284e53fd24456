namespace PlatformBenchmarks.Benchmarks;

/// <summary>The areas a run can be narrowed to with <c>--anyCategories</c>.</summary>
internal static class Categories
{
    public const string Parsing = nameof(Parsing);
    public const string Writing = nameof(Writing);
    public const string Serialization = nameof(Serialization);
    public const string EndToEnd = nameof(EndToEnd);
    public const string Data = nameof(Data);
    public const string Tls = nameof(Tls);
}
