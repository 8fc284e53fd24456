using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseFortuneTests
{
    // docs/tfb-rules.md §8, byte for byte: U+2014 em dashes, the Japanese row, the script row.
    private static readonly Fortune[] s_expected =
    [
        new(1, "fortune: No such file or directory"),
        new(2, "A computer scientist is someone who fixes things that aren't broken."),
        new(3, "After enough decimal places, nobody gives a damn."),
        new(4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"),
        new(5, "A computer program does what you tell it to do, not what you want it to do."),
        new(6, "Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen"),
        new(7, "Any program that runs right is obsolete."),
        new(8, "A list is only as strong as its weakest link. \u2014 Donald Knuth"),
        new(9, "Feature: A bug with seniority."),
        new(10, "Computers make very fast, very accurate mistakes."),
        new(11, "<script>alert(\"This should not be displayed in a browser alert box.\");</script>"),
        new(12, "\u30D5\u30EC\u30FC\u30E0\u30EF\u30FC\u30AF\u306E\u30D9\u30F3\u30C1\u30DE\u30FC\u30AF"),
    ];

    [Theory]
    [InlineData(Mode.Multiplexing)]
    [InlineData(Mode.Pooled)]
    public async Task FortunesAreExactlyTheTwelveRowsOfTheTable(Mode mode)
    {
        List<Fortune> fortunes = await TestDatabase.Shared(mode).LoadFortunesAsync();

        Assert.Equal(s_expected, fortunes.OrderBy(fortune => fortune.Id));
    }

    [Fact]
    public async Task WithTheRequestTimeFortuneTheySortIntoTheVerifiersOrder()
    {
        List<Fortune> fortunes = await TestDatabase.Shared(Mode.Multiplexing).LoadFortunesAsync();

        Fortune.AddAdditionalAndSort(fortunes);

        // The order of the verifier's expected page (docs/tfb-rules.md §4.5).
        Assert.Equal([11, 4, 5, 2, 8, 0, 3, 7, 10, 6, 9, 1, 12], fortunes.Select(fortune => fortune.Id));
    }
}
