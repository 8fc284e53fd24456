using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseFortuneTests
{
    private static readonly Fortune[] s_expected = TfbFortunes.Rows;

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task FortunesAreExactlyTheTwelveRowsOfTheTable(Mode mode)
    {
        List<Fortune> fortunes = (await TestDatabase.Shared(mode).LoadFortunesAsync()).Value;

        Assert.Equal(s_expected, fortunes.OrderBy(fortune => fortune.Id));
    }

    [Fact]
    public async Task WithTheRequestTimeFortuneTheySortIntoTheVerifiersOrder()
    {
        List<Fortune> fortunes = (await TestDatabase.Shared(Mode.Multiplexing).LoadFortunesAsync()).Value;

        Fortune.AddAdditionalAndSort(fortunes);

        // The order of the verifier's expected page (docs/tfb-rules.md §4.5).
        Assert.Equal([11, 4, 5, 2, 8, 0, 3, 7, 10, 6, 9, 1, 12], fortunes.Select(fortune => fortune.Id));
    }
}
