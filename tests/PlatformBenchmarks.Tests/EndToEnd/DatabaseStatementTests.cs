using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>
/// TFB's query-count check over HTTP (docs/tfb-rules.md §6): 512 requests on 512 concurrent connections, one request each,
/// as the harness's siege run makes them, then the statements and rows pg_stat_statements saw. Also the outage: 503
/// at once while the database is down, normal answers again after it returns, without a restart.
/// </summary>
[Collection(ExclusiveDatabaseTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseStatementTests(ServerFixture server) : IClassFixture<ServerFixture>
{
    private const int N = 512;

    /// <summary>One request on its own connection; MeasureAsync makes N of them at once, as siege -c 512 -r 1 does.</summary>
    private async Task RequestAsync(string target)
    {
        RawResponse response = await server.GetAsync(target);
        Assert.Equal(200, response.Status);
    }

    [Fact]
    public async Task HttpRequestsRunExactlyTheStatementsTheHarnessExpects()
    {
        Assert.Equal(200, (await server.GetAsync("/fortunes")).Status);

        Assert.Equal(new StatementCountTests.StatementCounts(N, N, 0), await StatementCountTests.MeasureAsync("world", () => RequestAsync("/db")));
        Assert.Equal(new StatementCountTests.StatementCounts(20 * N, 20 * N, 0), await StatementCountTests.MeasureAsync("world", () => RequestAsync("/queries/20")));
        Assert.Equal(new StatementCountTests.StatementCounts(21 * N, 20 * N, 20 * N), await StatementCountTests.MeasureAsync("world", () => RequestAsync("/updates/20")));
        Assert.Equal(new StatementCountTests.StatementCounts(N, 12 * N, 0), await StatementCountTests.MeasureAsync("fortune", () => RequestAsync("/fortunes")));
    }

    [Fact]
    public async Task DatabaseRoutesAnswer503PromptlyWhileTheDatabaseIsDownAndRecoverAfter()
    {
        Assert.Equal(200, (await server.GetAsync("/db")).Status);
        try
        {
            await DbScript.RunAsync("stop");

            foreach (string target in new[] { "/db", "/queries/5", "/updates/5", "/fortunes", "/db" })
            {
                var clock = System.Diagnostics.Stopwatch.StartNew();
                RawResponse response = await server.GetAsync(target);
                Assert.Equal(503, response.Status);
                Assert.Contains("database unavailable", response.BodyText, StringComparison.Ordinal);
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(3), $"{target} took {clock.Elapsed} to fail");
            }

            Assert.Equal("Hello, World!", (await server.GetAsync("/plaintext")).BodyText);
        }
        finally
        {
            await DbScript.RunAsync("start");
        }

        DateTime deadline = DateTime.UtcNow.AddSeconds(15);
        int status;
        do
        {
            await Task.Delay(200);
            status = (await server.GetAsync("/db")).Status;
        }
        while (status != 200 && DateTime.UtcNow < deadline);

        Assert.Equal(200, status);
        Assert.Equal(200, (await server.GetAsync("/fortunes")).Status);
        Assert.Equal(200, (await server.GetAsync("/updates/3")).Status);
    }
}
