using System.Text.RegularExpressions;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scenarios;

/// <summary>
/// Every performance figure in README.md comes from a run committed under scenarios/results/: a table of figures is
/// introduced by a paragraph naming the results file, whose lines hold each of its rows' figures together and in order;
/// a sentence with a figure names its file in the same paragraph, and the file holds the figure as written.
/// </summary>
public partial class ReadmeFiguresTests
{
    [Fact]
    public void EveryFigureInTheReadmeIsInTheResultsFileItNames()
    {
        string readme = Repository.ReadText("README.md");

        IReadOnlyList<string> problems = ReadmeFigures.Check(readme, Read);

        Assert.True(problems.Count == 0, string.Join('\n', problems));
        Assert.Contains(ReadmeFigures.Blocks(readme), b => b.Figures.Count > 0); // the README does show measurements
    }

    // A cited run is a results file, or a results folder whose Markdown files are read together.
    private static string? Read(string path)
    {
        string full = Repository.PathOf(path.TrimEnd('/').Split('/'));
        return File.Exists(full) ? File.ReadAllText(full)
            : Directory.Exists(full) ? string.Join('\n', Directory.GetFiles(full, "*.md").Order(StringComparer.Ordinal).Select(File.ReadAllText))
            : null;
    }

    [Fact]
    public void ATableOfFiguresWithoutAResultsFileIsReported()
    {
        const string readme = """
            Measured on two cores:

            | | /json |
            |---|---|
            | ours | 110.7k |
            """;

        string problem = Assert.Single(ReadmeFigures.Check(readme, _ => null));

        Assert.Contains("110.7k", problem, StringComparison.Ordinal);
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
    public void NumbersThatAreNotMeasurementsAreNotFigures()
    {
        // Settings, sizes, durations, counts, version numbers: none of them is a measurement.
        const string readme = """
            | key | default |
            |---|---|
            | `Http:MaxRequestBodySize` | `1048576` |
            | `Transport:DrainTimeout` | `00:00:05` |

            The tests take about 2.5 minutes on .NET 10.0 with 2,000 round trips and 4 KiB blocks.
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
            // In a table, a cell's number with a decimal point or a k/M suffix; in prose, a percentage, a rate or a CPU time.
            Regex figure = table ? TableFigure() : ProseFigure();
            blocks.Add(new Block(text, table, [.. figure.Matches(text).Select(m => m.Groups["figure"].Value).Distinct(StringComparer.Ordinal)]));
            lines.Clear();
        }
    }

    /// <summary>What is wrong with the README's figures; <paramref name="read"/> gives a file's text by its path from the root, or null.</summary>
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

            // A table is introduced by the paragraph just before it; a sentence cites its source itself.
            string citing = block.IsTable ? (i > 0 && !blocks[i - 1].IsTable ? blocks[i - 1].Text : string.Empty) : block.Text;
            string[] sources = [.. ResultsPath().Matches(citing).Select(m => m.Value.TrimEnd('.', ')', '`', ',', ':', ';'))];
            string where = block.Text.Split('\n')[0];
            if (sources.Length == 0)
            {
                problems.Add($"figures {string.Join(", ", block.Figures)} near \"{where}\": the text names no file under scenarios/results/");
                continue;
            }

            var texts = new List<string>();
            foreach (string source in sources)
            {
                string? text = read(source);
                if (text is null)
                {
                    problems.Add($"\"{where}\": {source} does not exist");
                }
                else
                {
                    texts.Add(text);
                }
            }

            if (texts.Count == 0)
            {
                continue;
            }

            string[] sourceLines = [.. texts.SelectMany(t => t.Split('\n'))];
            if (block.IsTable)
            {
                // A row's figures stand together, in the same order, on one line of the source: a figure that only
                // appears somewhere else in the file does not count.
                foreach (string row in block.Text.Split('\n'))
                {
                    string[] figures = [.. TableFigure().Matches(row).Select(m => m.Groups["figure"].Value)];
                    if (figures.Length > 0 && !sourceLines.Any(line => InOrder(figures).IsMatch(line)))
                    {
                        problems.Add($"row \"{row.Trim()}\": no line of {string.Join(" or ", sources)} has {string.Join(", ", figures)} in this order");
                    }
                }
            }
            else
            {
                foreach (string figure in block.Figures.Where(f => !sourceLines.Any(line => InOrder([f]).IsMatch(line))))
                {
                    problems.Add($"figure {figure} near \"{where}\" is not in {string.Join(" or ", sources)}");
                }
            }
        }

        return problems;
    }

    /// <summary>The figures as standalone numbers, in this order, anything between them.</summary>
    private static Regex InOrder(IEnumerable<string> figures) =>
        new(string.Join(".*", figures.Select(f => $@"(?<![\d.,]){Regex.Escape(f)}(?![\d])")));

    [GeneratedRegex(@"(?<=\|\s*)(?<figure>\d[\d,]*\.\d+[kM]?|\d[\d,]*[kM])(?=[\s|(])")]
    private static partial Regex TableFigure();

    [GeneratedRegex(@"(?<![\w.])(?<figure>\d[\d,]*(?:\.\d+)?(?:%|[kM](?=/s| requests)| ?µs))")]
    private static partial Regex ProseFigure();

    [GeneratedRegex(@"scenarios/results/[\w.\-/]+")]
    private static partial Regex ResultsPath();
}
