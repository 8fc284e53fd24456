using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

public class FortuneTests
{
    [Fact]
    public void AddAdditionalAndSortAddsTheRequestTimeFortuneAndSortsByCodePoint()
    {
        var fortunes = new List<Fortune>
        {
            new(1, "fortune: No such file or directory"),
            new(12, "フレームワークのベンチマーク"),
            new(11, "<script>alert(\"x\");</script>"),
            new(6, "Emacs — Tom"),
            new(2, "A computer scientist"),
            new(13, "Ängström"),
        };

        Fortune.AddAdditionalAndSort(fortunes);

        // Code-point order: '<' < 'A' < 'E' < 'f' < 'Ä' < 'フ'; a culture-aware sort would put "Ängström" next to the As.
        Assert.Equal([11, 2, 0, 6, 1, 13, 12], fortunes.Select(fortune => fortune.Id));
        Assert.Equal("Additional fortune added at request time.", fortunes[2].Message);
    }
}
