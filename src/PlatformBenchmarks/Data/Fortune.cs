namespace PlatformBenchmarks.Data;

/// <summary>A row of the <c>fortune</c> table, or the one added at request time.</summary>
internal readonly record struct Fortune(int Id, string Message)
{
    /// <summary>The fortune every request adds before sorting; never persisted (docs/tfb-rules.md §4.5).</summary>
    public const string AdditionalMessage = "Additional fortune added at request time.";

    // Ordinal: the verifier expects plain code-point order, never a culture-aware one (docs/tfb-rules.md §4.5).
    private static readonly Comparison<Fortune> s_byMessage = static (x, y) => string.CompareOrdinal(x.Message, y.Message);

    /// <summary>
    /// Adds the request-time fortune and sorts by message, as the fortunes test requires of every request
    /// (docs/tfb-rules.md §4.5). Sorting through a cached <see cref="Comparison{T}"/> allocates nothing.
    /// </summary>
    public static void AddAdditionalAndSort(List<Fortune> fortunes)
    {
        ArgumentNullException.ThrowIfNull(fortunes);
        fortunes.Add(new Fortune(0, AdditionalMessage));
        fortunes.Sort(s_byMessage);
    }
}
