using System.Text.RegularExpressions;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Docker;

public partial class ComposeTests
{
    /// <summary>TFB's Fortune rows (docs/tfb-rules.md §8), the reference both database loaders must match.</summary>
    private static readonly string[] s_fortunes =
    [
        "fortune: No such file or directory",
        "A computer scientist is someone who fixes things that aren't broken.",
        "After enough decimal places, nobody gives a damn.",
        "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
        "A computer program does what you tell it to do, not what you want it to do.",
        "Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen",
        "Any program that runs right is obsolete.",
        "A list is only as strong as its weakest link. \u2014 Donald Knuth",
        "Feature: A bug with seniority.",
        "Computers make very fast, very accurate mistakes.",
        "<script>alert(\"This should not be displayed in a browser alert box.\");</script>",
        "\u30D5\u30EC\u30FC\u30E0\u30EF\u30FC\u30AF\u306E\u30D9\u30F3\u30C1\u30DE\u30FC\u30AF",
    ];

    private static Dictionary<string, object?> Services()
    {
        var compose = (Dictionary<string, object?>)YamlSubset.Parse(Repository.ReadText("docker", "compose.yaml"))!;
        return (Dictionary<string, object?>)compose["services"]!;
    }

    private static Dictionary<string, object?> Map(object? node, string what) =>
        Assert.IsType<Dictionary<string, object?>>(node, exactMatch: true) ?? throw new InvalidOperationException(what);

    [Fact]
    public void ComposeRunsTheServerAndTheDatabaseUnderTfbsHostNames()
    {
        Dictionary<string, object?> services = Services();

        Dictionary<string, object?> server = Map(services["tfb-server"], "tfb-server");
        Dictionary<string, object?> build = Map(server["build"], "build");
        Assert.Equal("..", build["context"]);
        Assert.True(File.Exists(Repository.PathOf((string)build["dockerfile"]!)), "the server's dockerfile is missing");
        Assert.Equal(["8080:8080"], Assert.IsType<List<object?>>(server["ports"]));
        Assert.Equal("service_healthy", Map(Map(server["depends_on"], "depends_on")["tfb-database"], "tfb-database")["condition"]);

        Dictionary<string, object?> database = Map(services["tfb-database"], "tfb-database");
        Dictionary<string, object?> databaseBuild = Map(database["build"], "build");
        Assert.True(File.Exists(Repository.PathOf("docker", (string)databaseBuild["context"]!, (string)databaseBuild["dockerfile"]!)));
        Assert.Equal("tfb-database", database["hostname"]);
    }

    [Fact]
    public void TheAotServerIsAnOptionalProfileOnItsOwnPort()
    {
        Dictionary<string, object?> aot = Map(Services()["tfb-server-aot"], "tfb-server-aot");

        Assert.Equal(["aot"], Assert.IsType<List<object?>>(aot["profiles"]));
        Assert.Equal("docker/tfb/platformbenchmarks-aot.dockerfile", Map(aot["build"], "build")["dockerfile"]);
        Assert.Equal(["8081:8080"], Assert.IsType<List<object?>>(aot["ports"]));
    }

    [Fact]
    public void TheDatabaseImageConfiguresPostgresLikeTfb()
    {
        string dockerfile = Repository.ReadText("docker", "database", "postgres.dockerfile");

        Assert.Contains("FROM postgres:18-trixie", dockerfile, StringComparison.Ordinal);
        Assert.Contains("ENV POSTGRES_DB=hello_world", dockerfile, StringComparison.Ordinal);
        Assert.Contains("ENV POSTGRES_USER=benchmarkdbuser", dockerfile, StringComparison.Ordinal);
        Assert.Contains("ENV POSTGRES_PASSWORD=benchmarkdbpass", dockerfile, StringComparison.Ordinal);
        Assert.Contains("\"shared_preload_libraries=pg_stat_statements\"", dockerfile, StringComparison.Ordinal);
        Assert.Contains("COPY scripts/sql/hello_world.sql /docker-entrypoint-initdb.d/", dockerfile, StringComparison.Ordinal);
        Assert.Contains("COPY docker/database/00-extensions.sql /docker-entrypoint-initdb.d/", dockerfile, StringComparison.Ordinal);
    }

    [Fact]
    public void TheDatabaseImageLoadsTfbsWorldAndFortuneRows()
    {
        // The image loads scripts/sql/hello_world.sql, the file scripts/db.sh loads for the local cluster.
        string sql = Repository.ReadText("scripts", "sql", "hello_world.sql");

        Assert.Contains("FROM generate_series(1, 10000)", sql, StringComparison.Ordinal);
        Assert.Contains("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", Repository.ReadText("docker", "database", "00-extensions.sql"), StringComparison.Ordinal);
        Assert.Equal(s_fortunes, FortuneRows(sql));
    }

    private static string[] FortuneRows(string sql) =>
        [.. FortuneRow().Matches(sql).OrderBy(m => int.Parse(m.Groups["id"].Value, System.Globalization.CultureInfo.InvariantCulture))
            .Select(m => m.Groups["message"].Value.Replace("''", "'", StringComparison.Ordinal))];

    [GeneratedRegex(@"^\s*\((?<id>\d+), '(?<message>([^']|'')*)'\)[,;]?\s*$", RegexOptions.Multiline)]
    private static partial Regex FortuneRow();
}
