using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// The server's start-up work after it listens: the database probe, the World cache's warm-up, then the banner. The
/// host runs it after every hosted service has started (Kestrel's included, so the server already answers) and before
/// it signals that the application has started, which prints the host's <c>Application started.</c> line: the line
/// load tools and scripts wait for then means a warmed-up server, whose first measured requests do not fill the cache.
/// </summary>
internal sealed class StartUpWarmUp(IServiceProvider services) : IHostedLifecycleService
{
    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public async Task StartedAsync(CancellationToken cancellationToken)
    {
        // The database may be down: the banner then says so, and the database routes answer 503 until it is back.
        DatabaseStatus database = await services.GetRequiredService<Database>().TryWarmUpAsync();
        DatabaseStatus cache = await services.GetRequiredService<WorldCache>().TryWarmUpAsync();
        Banner.Print(services, database, cache);
    }

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
