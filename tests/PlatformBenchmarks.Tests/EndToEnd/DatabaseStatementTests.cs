using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.EndToEnd;

/// <summary>
/// TFB's query-count check over HTTP (docs/tfb-rules.md §6): 512 requests on 512 concurrent connections, one request each,
/// as the harness's siege run makes them, then the statements and rows pg_stat_statements saw. Also the outage: 503
/// at once while the database is down, normal answers again after it returns, without a restart. The server's clock is
/// a fake one: the fail-fast period ends when the test moves the clock, not when the machine gets round to it.
/// </summary>
[Collection(ExclusiveDatabaseTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class DatabaseStatementTests(DatabaseStatementTests.FakeClockServer server) : IClassFixture<DatabaseStatementTests.FakeClockServer>
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

            string[] targets = ["/db", "/queries/5", "/updates/5", "/fortunes", "/db"];
            for (int i = 0; i < targets.Length; i++)
            {
                // Promptly in real time: the first call finds the database gone at once (refused, or its connection
                // closed), and the breaker answers the others without trying it.
                var clock = System.Diagnostics.Stopwatch.StartNew();
                RawResponse response = await server.GetAsync(targets[i]);
                Assert.Equal(503, response.Status);
                Assert.Contains("database unavailable", response.BodyText, StringComparison.Ordinal);
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(3), $"{targets[i]} took {clock.Elapsed} to fail");
                if (i > 0)
                {
                    // The server's clock has not moved: the fail-fast period cannot have ended.
                    Assert.Contains("failing fast", response.BodyText, StringComparison.Ordinal);
                }
            }

            Assert.Equal("Hello, World!", (await server.GetAsync("/plaintext")).BodyText);
        }
        finally
        {
            await DbScript.RunAsync("start");
        }

        // Each attempt moves the server's clock past the fail-fast period, so its call is let through as the breaker's
        // probe. PostgreSQL is a real process starting up: between attempts the test waits for it, not for the breaker.
        TimeSpan period = server.Services.GetRequiredService<IOptions<DatabaseOptions>>().Value.FailFastPeriod;
        using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(15));
        int status;
        while (true)
        {
            server.Clock.Advance(period);
            status = (await server.GetAsync("/db")).Status;
            if (status == 200 || deadline.IsCancellationRequested)
            {
                break;
            }

            await Task.Delay(200, CancellationToken.None);
        }

        Assert.Equal(200, status);
        Assert.Equal(200, (await server.GetAsync("/fortunes")).Status);
        Assert.Equal(200, (await server.GetAsync("/updates/3")).Status);
    }

    /// <summary>The server with a clock of the test's: it stands still until the test advances it.</summary>
    public sealed class FakeClockServer : ServerFixture
    {
        public FakeTimeProvider Clock { get; } = new();

        protected override TimeProvider Time => Clock;
    }
}
