using System.Text.RegularExpressions;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>
/// Every performance figure in the READMEs and in the decision records that hold what the README used to quote comes
/// from a run committed under scenarios/results/ or benchmarks/results/: a table of figures is introduced by a paragraph
/// naming the results file (or a row names its own), whose lines hold each of its rows' figures together and in order;
/// a sentence with a figure, or a figure quoted inside a table cell, names its file in the same paragraph or row, and
/// the file holds the figure as written. The top-level README says what the server does; how it was measured is in
/// the records.
/// </summary>
public partial class ReadmeFiguresTests
{
    /// <summary>The documents whose figures are checked.</summary>
    public static TheoryData<string> Documents() => new()
    {
        "README.md",
        "scenarios/README.md",
        "benchmarks/README.md",
        "docs/decisions/0007-runtime-and-socket-settings.md",
        "docs/decisions/0010-transport-kinds-and-listeners.md",
        "docs/decisions/0011-against-the-reference-entries.md",
        "docs/decisions/0012-http11probe-divergences.md",
    };

    [Theory]
    [MemberData(nameof(Documents))]
    public void EveryFigureIsInTheResultsFileItNames(string path)
    {
        string text = Repository.ReadText(path);

        IReadOnlyList<string> problems = ReadmeFigures.Check(text, Read);

        Assert.True(problems.Count == 0, string.Join('\n', problems));
    }

    [Fact]
    public void TheReadmeQuotesNoMeasurement()
    {
        IEnumerable<string> figures = ReadmeFigures.Blocks(Repository.ReadText("README.md")).SelectMany(b => b.Figures);

        Assert.Empty(figures);
    }

    [Theory]
    [InlineData("benchmarks/README.md")]
    [InlineData("docs/decisions/0010-transport-kinds-and-listeners.md")]
    [InlineData("docs/decisions/0011-against-the-reference-entries.md")]
    public void TheMeasurementsAreShownWhereTheyLive(string path)
    {
        // Guards against a check that finds nothing to check.
        Assert.Contains(ReadmeFigures.Blocks(Repository.ReadText(path)), b => b.Figures.Count > 0);
    }

    // A cited run is a results file, or a results folder whose Markdown files are read together.
    private static string? Read(string path)
    {
        string full = Repository.PathOf(path.TrimEnd('/').Split('/'));
        return File.Exists(full) ? File.ReadAllText(full)
            : Directory.Exists(full) ? string.Join('\n', Directory.GetFiles(full, "*.md").Order(StringComparer.Ordinal).Select(File.ReadAllText))
            : null;
    }

    [Theory]
    [InlineData("| ours | 110.7k |", "110.7k")]
    [InlineData("| `Sockets:UnsafePreferInlineScheduling` | run continuations inline (measured +11% on pipelined plaintext) |", "11%")]
    public void ATableOfFiguresWithoutAResultsFileIsReported(string row, string figure)
    {
        // A cell's own figure, or a percentage quoted in a cell's text.
        string readme = $"Measured on two cores:\n\n| | |\n|---|---|\n{row}\n";

        string problem = Assert.Single(ReadmeFigures.Check(readme, _ => null));

        Assert.Contains(figure, problem, StringComparison.Ordinal);
        Assert.Contains("names no file under scenarios/results/", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void AFigureMissingFromTheNamedFileIsReported()
    {
        const string readme = """
            From `scenarios/results/run/results.md`:

            | | /plaintext | /json |
            |---|---|---|
            | ours | 1,261k | 1.08 |

            Plaintext gained 11% with inline scheduling (`scenarios/results/run/results.md`).
            """;
        const string results = "| 256 | 931k | 1.08 |";

        IReadOnlyList<string> problems = ReadmeFigures.Check(readme, path => path == "scenarios/results/run/results.md" ? results : null);

        Assert.Equal(2, problems.Count);
        Assert.Contains(problems, p => p.Contains("1,261k", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.Contains("11%", StringComparison.Ordinal));
    }

    [Fact]
    public void ARowWhoseFiguresAreScatteredOverTheFileIsReported()
    {
        const string readme = """
            From `scenarios/results/run/results.md`:

            | | /plaintext | /json |
            |---|---|---|
            | ours | 0.73 | 1.25 |
            """;
        const string results = "| plaintext | 0.73 | 0.72 |\n| json | 1.25 | 0.72 |";

        string problem = Assert.Single(ReadmeFigures.Check(readme, _ => results));

        Assert.Contains("0.73, 1.25 in this order", problem, StringComparison.Ordinal);
        Assert.Empty(ReadmeFigures.Check(readme, _ => results + "\n| both | 0.73 | 1.25 |"));
    }

    [Fact]
    public void ANamedFileThatDoesNotExistIsReported()
    {
        const string readme = "It served 12.5k requests/s (`scenarios/results/gone.md`).";

        string problem = Assert.Single(ReadmeFigures.Check(readme, _ => null));

        Assert.Contains("scenarios/results/gone.md does not exist", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void FiguresQuotedInATableCellAreCheckedAgainstTheFileTheRowNames()
    {
        const string readme = """
            | class | what |
            |---|---|
            | `BodyCopy` | the bound took 638.7 ns against 646.9 ns (`benchmarks/results/copy.md`) |
            | `Inline` | 0.71 µs against 0.93 µs, 20% less (`scenarios/results/inline.md`) |
            """;
        string? Read(string path) => path switch
        {
            "benchmarks/results/copy.md" => "| Straight | 638.7 ns |\n| **Copied** | **646.9 ns** |",
            "scenarios/results/inline.md" => "kestrel mean 1139512 0.93\nsockets mean 1367486 0.71",
            _ => null,
        };

        string problem = Assert.Single(ReadmeFigures.Check(readme, Read));

        Assert.Contains("20%", problem, StringComparison.Ordinal);
        Assert.Contains("scenarios/results/inline.md", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void NumbersThatAreNotMeasurementsAreNotFigures()
    {
        // Settings, sizes, durations, counts, version numbers: none of them is a measurement.
        const string readme = """
            | key | default |
            |---|---|
            | `Http:MaxRequestBodySize` | `1048576` |
            | `Transport:DrainTimeout` | `00:00:05` |

            The tests take about 2.5 minutes on .NET 10.0 with 2,000 round trips and 4 KiB blocks. `Error` is half
            the 99.9% confidence interval.
            """;

        Assert.All(ReadmeFigures.Blocks(readme), block => Assert.Empty(block.Figures));
    }
}

/// <summary>The README's figures and the results files they cite.</summary>
internal static partial class ReadmeFigures
{
    internal sealed record Block(string Text, bool IsTable, IReadOnlyList<string> Figures);

    /// <summary>The README's paragraphs and tables (fenced code left out), with the figures each holds.</summary>
    public static IReadOnlyList<Block> Blocks(string markdown)
    {
        var blocks = new List<Block>();
        var lines = new List<string>();
        bool fenced = false;
        foreach (string line in markdown.Split('\n').Append(string.Empty))
        {
            if (line.TrimStart().StartsWith("```", StringComparison.Ordinal))
            {
                fenced = !fenced;
                continue;
            }

            if (fenced)
            {
                continue;
            }

            bool isTableLine = line.TrimStart().StartsWith('|');
            if (line.Trim().Length == 0 || (lines.Count > 0 && isTableLine != lines[0].TrimStart().StartsWith('|')))
            {
                Flush();
            }

            if (line.Trim().Length > 0)
            {
                lines.Add(line);
            }
        }

        return blocks;

        void Flush()
        {
            if (lines.Count == 0)
            {
                return;
            }

            string text = string.Join('\n', lines);
            bool table = lines[0].TrimStart().StartsWith('|');
            // In a table, a cell's number with a decimal point or a k/M suffix, and what prose would quote inside a
            // cell; in prose, a percentage, a rate or a time per operation.
            IEnumerable<Match> figures = table ? TableFigure().Matches(text).Concat(ProseFigure().Matches(text)) : ProseFigure().Matches(text);
            blocks.Add(new Block(text, table, [.. figures.Select(m => m.Groups["figure"].Value).Distinct(StringComparer.Ordinal)]));
            lines.Clear();
        }
    }

    /// <summary>What is wrong with a README's figures; <paramref name="read"/> gives a file's text by its path from the root, or null.</summary>
    public static IReadOnlyList<string> Check(string markdown, Func<string, string?> read)
    {
        var problems = new List<string>();
        IReadOnlyList<Block> blocks = Blocks(markdown);
        for (int i = 0; i < blocks.Count; i++)
        {
            Block block = blocks[i];
            if (block.Figures.Count == 0)
            {
                continue;
            }

            string where = block.Text.Split('\n')[0];
            if (!block.IsTable)
            {
                // A sentence cites its source itself, and the source holds each of its figures.
                string[]? lines = Lines(Sources(block.Text), block.Figures, $"near \"{where}\"");
                problems.AddRange(Missing(block.Figures, lines).Select(f => $"figure {f} near \"{where}\" is not in {string.Join(" or ", Sources(block.Text))}"));
                continue;
            }

            // A table is introduced by the paragraph just before it; a row may name a file of its own.
            string[] introduced = i > 0 && !blocks[i - 1].IsTable ? Sources(blocks[i - 1].Text) : [];
            foreach (string row in block.Text.Split('\n'))
            {
                string[] cells = [.. TableFigure().Matches(row).Select(m => m.Groups["figure"].Value)];
                string[] quoted = [.. ProseFigure().Matches(row).Select(m => m.Groups["figure"].Value).Distinct(StringComparer.Ordinal)];
                if (cells.Length + quoted.Length == 0)
                {
                    continue;
                }

                string[] own = Sources(row);
                string[] sources = own.Length > 0 ? own : introduced;
                string[]? lines = Lines(sources, [.. cells.Concat(quoted)], $"in row \"{row.Trim()}\"");
                // A row's cell figures stand together, in the same order, on one line of the source: a figure that
                // only appears somewhere else in the file does not count.
                if (lines is not null && cells.Length > 0 && !lines.Any(line => InOrder(cells).IsMatch(line)))
                {
                    problems.Add($"row \"{row.Trim()}\": no line of {string.Join(" or ", sources)} has {string.Join(", ", cells)} in this order");
                }

                // Figures quoted inside a cell's text are checked one by one, as in a sentence.
                problems.AddRange(Missing(quoted, lines).Select(f => $"figure {f} in row \"{row.Trim()}\" is not in {string.Join(" or ", sources)}"));
            }
        }

        return problems;

        // The lines of the cited files, or null (with the problem recorded) when none is named or none exists.
        string[]? Lines(string[] sources, IReadOnlyList<string> figures, string where)
        {
            if (sources.Length == 0)
            {
                problems.Add($"figures {string.Join(", ", figures)} {where}: the text names no file under scenarios/results/ or benchmarks/results/");
                return null;
            }

            var texts = new List<string>();
            foreach (string source in sources)
            {
                string? text = read(source);
                if (text is null)
                {
                    problems.Add($"{where}: {source} does not exist");
                }
                else
                {
                    texts.Add(text);
                }
            }

            return texts.Count == 0 ? null : [.. texts.SelectMany(t => t.Split('\n'))];
        }
    }

    /// <summary>The figures that no line holds as written (none when there are no lines: that problem is already told).</summary>
    private static IEnumerable<string> Missing(IEnumerable<string> figures, string[]? lines) =>
        lines is null ? [] : figures.Where(f => !lines.Any(line => InOrder([f]).IsMatch(line)));

    private static string[] Sources(string text) =>
        [.. ResultsPath().Matches(text).Select(m => m.Value.TrimEnd('.', ')', '`', ',', ':', ';'))];

    /// <summary>The figures as standalone numbers, in this order, anything between them.</summary>
    private static Regex InOrder(IEnumerable<string> figures) =>
        new(string.Join(".*", figures.Select(f => $@"(?<![\d.,]){Regex.Escape(f)}(?![\d])")));

    [GeneratedRegex(@"(?<=\|\s*)(?<figure>\d[\d,]*\.\d+[kM]?|\d[\d,]*[kM])(?=[\s|(])")]
    private static partial Regex TableFigure();

    // A percentage (not a confidence level), a rate in k or M per second, or a time in µs or ns (the unit left out of
    // the figure: results tables give it in their headers).
    [GeneratedRegex(@"(?<![\w.])(?<figure>\d[\d,]*(?:\.\d+)?(?:%(?! confidence)|[kM](?=/s| requests)|(?= ?[µn]s\b)))")]
    private static partial Regex ProseFigure();

    [GeneratedRegex(@"(?:scenarios|benchmarks)/results/[\w.\-/]+")]
    private static partial Regex ResultsPath();
}
