using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// The server as Program builds it, listening on an ephemeral loopback port in the test process. The database
/// connection string, when there is one, comes from the ConnectionString environment variable or else from
/// scripts/db.sh (which only prints it: starting the database is the test command's job).
/// </summary>
public sealed class InProcessServer : IAsyncLifetime
{
    private WebApplication? _app;

    public Uri BaseAddress { get; private set; } = new("http://127.0.0.1/");

    public async Task InitializeAsync()
    {
        var arguments = new List<string> { "--urls", "http://127.0.0.1:0" };
        string? connectionString = await DatabaseConnectionStringAsync();
        if (connectionString is not null)
        {
            arguments.Add($"--ConnectionString={connectionString}");
        }

        _app = Program.BuildApplication([.. arguments]);
        await _app.StartAsync();
        string address = _app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        BaseAddress = new Uri(address);
    }

    public async Task DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.StopAsync();
            await _app.DisposeAsync();
        }
    }

    private static async Task<string?> DatabaseConnectionStringAsync()
    {
        string? fromEnvironment = Environment.GetEnvironmentVariable("ConnectionString");
        if (!string.IsNullOrEmpty(fromEnvironment))
        {
            return fromEnvironment;
        }

        if (!File.Exists(Repository.PathOf("scripts", "db.sh")))
        {
            return null;
        }

        ProcessResult result = await ChildProcess.RunAsync("bash", ["scripts/db.sh", "connection-string"], TimeSpan.FromSeconds(30));
        return result.ExitCode == 0 ? result.Output.Trim() : null;
    }
}

[CollectionDefinition(Name)]
public sealed class SharedInProcessServer : ICollectionFixture<InProcessServer>
{
    public const string Name = "In-process server";
}
