namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// The trait that sets apart the tests needing more than the test process: PostgreSQL, wrk, a publish, or a run of every
/// benchmark. <c>scripts/test.sh --unit</c> runs all the others (filter <c>Category!=System</c>) without starting anything.
/// </summary>
internal static class TestCategory
{
    public const string Name = "Category";

    public const string System = "System";
}
