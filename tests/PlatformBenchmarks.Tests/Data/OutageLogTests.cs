using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Testing;
using Microsoft.Extensions.Time.Testing;
using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>What an operator reads of an outage: driven through the circuit breaker, whose transitions feed the log.</summary>
public class OutageLogTests
{
    private const int Unavailable = 200;
    private const int UnavailableAgain = 201;
    private const int Available = 202;
    private static readonly TimeSpan s_period = TimeSpan.FromSeconds(1);

    private readonly FakeTimeProvider _time = new();
    private readonly FakeLogger _logger = new();
    private readonly CircuitBreaker _breaker;

    public OutageLogTests() => _breaker = new CircuitBreaker(s_period, _time, _logger);

    private static NpgsqlException Refused => new("Failed to connect to 127.0.0.1:1", new SocketException((int)SocketError.ConnectionRefused));

    private IReadOnlyList<FakeLogRecord> Lines => _logger.Collector.GetSnapshot();

    [Fact]
    public void AnOutageLogsOneWarningWithItsReasonHoweverManyCallsFail()
    {
        // The calls in flight when the database went away all fail; later ones fail fast; every period a probe fails.
        for (int i = 0; i < 64; i++)
        {
            _breaker.Tripped("cannot connect (ConnectionRefused)", Refused);
        }

        for (int second = 0; second < 30; second++)
        {
            for (int i = 0; i < 100; i++)
            {
                Assert.Equal(BreakerAdmission.Open, _breaker.Enter());
            }

            _time.Advance(s_period);
            Assert.Equal(BreakerAdmission.Probe, _breaker.Enter());
            _breaker.Tripped("cannot connect (ConnectionRefused)", Refused);
        }

        FakeLogRecord warning = Assert.Single(Lines);
        Assert.Equal(LogLevel.Warning, warning.Level);
        Assert.Equal(Unavailable, warning.Id.Id);
        Assert.Equal(
            "Database unavailable: cannot connect (ConnectionRefused) (NpgsqlException: Failed to connect to 127.0.0.1:1); "
                + "the database routes answer 503 until it is back",
            warning.Message);
    }

    [Fact]
    public void TheProbeThatClosesTheBreakerLogsTheRecoveryWithTheOutagesDuration()
    {
        _breaker.Tripped("connection lost", Refused);
        _time.Advance(TimeSpan.FromMilliseconds(1200));
        Assert.Equal(BreakerAdmission.Probe, _breaker.Enter());
        _breaker.Tripped("connection lost", Refused);
        _time.Advance(TimeSpan.FromMilliseconds(1300));
        Assert.Equal(BreakerAdmission.Probe, _breaker.Enter());

        _breaker.Succeeded(probe: true);
        _breaker.Succeeded(probe: false);
        _breaker.Succeeded(probe: true);

        Assert.Equal([Unavailable, Available], Lines.Select(line => line.Id.Id));
        FakeLogRecord recovery = Lines[1];
        Assert.Equal(LogLevel.Information, recovery.Level);
        Assert.Equal("Database available again after 2.5 s unavailable", recovery.Message);
    }

    [Fact]
    public void FlappingWithinTheWarningIntervalAddsNoLines()
    {
        DateTimeOffset warned = _time.GetUtcNow();
        Flap();
        Assert.Equal([Unavailable, Available], Lines.Select(line => line.Id.Id));

        // A database in a restart loop: down, back a period later, down again, until just before the interval is over.
        while (_time.GetUtcNow() + s_period - warned < OutageLog.WarningInterval)
        {
            Flap();
        }

        Assert.Equal(2, Lines.Count);
    }

    [Fact]
    public void AnOutageThatBeganWithinTheIntervalIsWarnedOfOnceTheIntervalHasPassed()
    {
        DateTimeOffset warned = _time.GetUtcNow();
        Flap();
        Flap();
        Flap();
        // Down again 3 s after the warning, and for good: the failed probes are silent until the interval is over.
        _breaker.Tripped("cannot connect (ConnectionRefused)", Refused);
        while (_time.GetUtcNow() + s_period - warned < OutageLog.WarningInterval)
        {
            _time.Advance(s_period);
            Assert.Equal(BreakerAdmission.Probe, _breaker.Enter());
            _breaker.Tripped("cannot connect (ConnectionRefused)", Refused);
            Assert.Equal(2, Lines.Count);
        }

        _time.Advance(s_period);
        Assert.Equal(BreakerAdmission.Probe, _breaker.Enter());
        _breaker.Tripped("cannot connect (ConnectionRefused)", Refused);
        _time.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal(BreakerAdmission.Probe, _breaker.Enter());
        _breaker.Succeeded(probe: true);

        Assert.Equal([Unavailable, Available, UnavailableAgain, Available], Lines.Select(line => line.Id.Id));
        Assert.Equal(LogLevel.Warning, Lines[2].Level);
        Assert.Equal(
            "Database unavailable: cannot connect (ConnectionRefused) (NpgsqlException: Failed to connect to 127.0.0.1:1), for 7.0 s now; "
                + "2 shorter outages since the last warning were not logged (one outage warning every 10 s at most)",
            Lines[2].Message);
        Assert.Equal("Database available again after 12.0 s unavailable", Lines[3].Message);
    }

    [Fact]
    public void AnOutageLongAfterTheLastWarningIsWarnedOfAtOnce()
    {
        Flap();
        _time.Advance(TimeSpan.FromMinutes(5));

        _breaker.Tripped("57P01 terminating connection due to administrator command", Refused);

        Assert.Equal([Unavailable, Available, Unavailable], Lines.Select(line => line.Id.Id));
        Assert.StartsWith("Database unavailable: 57P01 terminating connection", Lines[2].Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheErrorNamesTheExceptionAndTheFirstLineOfItsMessageWithoutRepeatingTheReason()
    {
        Assert.Equal("IOException: broken pipe", OutageLog.Describe(new IOException("broken pipe\nat the second line")));
        Assert.Equal("PostgresException", OutageLog.Describe(new PostgresException("the database system is starting up", "FATAL", "FATAL", "57P03")));

        string capped = OutageLog.Describe(new IOException(new string('x', 1000)));

        Assert.Equal(200, capped.Length);
        Assert.EndsWith("x…", capped, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheServersLogLevelsLetTheRecoveryLineThroughWhileTheDefaultIsWarning()
    {
        // The host as Main builds it, with appsettings.json: Information is below its default level.
        WebApplication app = Program.BuildApplication(["--urls", "http://127.0.0.1:0"], new FakeTimeProvider());
        await using (app)
        {
            ILoggerFactory loggers = app.Services.GetRequiredService<ILoggerFactory>();

            Assert.True(loggers.CreateLogger(Database.LogCategory).IsEnabled(LogLevel.Information));
            Assert.False(loggers.CreateLogger("PlatformBenchmarks.Http").IsEnabled(LogLevel.Information));
        }
    }

    [Theory]
    [Trait(TestCategory.Name, TestCategory.System)]
    [InlineData(true)]
    [InlineData(false)]
    public async Task AnUnreachableDatabaseLogsOneWarningHoweverManyRequestsFail(bool multiplexing)
    {
        await using Database database = TestDatabase.Refused(multiplexing, _time, _logger);

        for (int round = 0; round < 3; round++)
        {
            DataResult<World[]>[] results = await Task.WhenAll(Enumerable.Range(0, 32).Select(_ => database.LoadWorldsAsync(20).AsTask()));
            Assert.All(results, result => Assert.Equal(DataOutcome.Unavailable, result.Outcome));
            _time.Advance(s_period);
        }

        FakeLogRecord warning = Assert.Single(Lines);
        Assert.Equal(Unavailable, warning.Id.Id);
        Assert.Contains("ConnectionRefused", warning.Message, StringComparison.Ordinal);
    }

    /// <summary>An outage of one period: the breaker opens, and the probe a period later succeeds.</summary>
    private void Flap()
    {
        _breaker.Tripped("cannot connect (ConnectionRefused)", Refused);
        _time.Advance(s_period);
        Assert.Equal(BreakerAdmission.Probe, _breaker.Enter());
        _breaker.Succeeded(probe: true);
    }
}
