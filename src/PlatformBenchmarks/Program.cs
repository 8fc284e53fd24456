using System.Net;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection.Extensions;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks;

internal static class Program
{
    public const string DefaultUrls = "http://*:8080";

    /// <summary>The exit code for a configuration value the server cannot run with.</summary>
    public const int SettingsExitCode = 2;

    public static async Task<int> Main(string[] args)
    {
        // First, before anything creates a socket: the runtime reads this switch only once.
        SocketCompletions.Configure();

        WebApplication app;
        try
        {
            app = BuildApplication(args);
        }
        catch (SettingsException exception)
        {
            await Console.Error.WriteLineAsync($"PlatformBenchmarks: {exception.Message}");
            return SettingsExitCode;
        }

        await using (app.ConfigureAwait(false))
        {
            await app.StartAsync();

            // The server already answers; the database may be down, in which case the banner says so and the
            // database routes answer 503 until it is back.
            DatabaseStatus database = await app.Services.GetRequiredService<Database>().TryWarmUpAsync();
            DatabaseStatus cache = await app.Services.GetRequiredService<WorldCache>().TryWarmUpAsync();
            Banner.Print(app, database, cache);
            await app.WaitForShutdownAsync();
        }

        return 0;
    }

    /// <summary>
    /// The host: Kestrel with its socket transport, whose endpoints all hand their connections to this project's
    /// HTTP engine. Configuration comes from appsettings.json, environment variables and the command line.
    /// </summary>
    public static WebApplication BuildApplication(string[] args)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions
        {
            Args = args,
            ContentRootPath = AppContext.BaseDirectory,
        });

        ConfigurationManager configuration = builder.Configuration;
        builder.WebHost.UseUrls(configuration["urls"] ?? DefaultUrls);

        var transport = Bind(() => configuration.GetSection("Transport").Get<TransportSettings>()) ?? new TransportSettings();
        builder.Services.AddSingleton(transport);
        UseTransport(builder, Bind(() => configuration.GetSection("Transport").Get<TransportOptions>()) ?? new TransportOptions(), transport);

        var limits = Bind(() => configuration.GetSection("Http").Get<HttpLimits>()) ?? new HttpLimits();
        limits.Validate();
        builder.Services.AddSingleton(limits);

        var database = new Database(DatabaseOptions.FromConfiguration(configuration));
        var cache = new WorldCache(database);
        // Factories, so the host disposes them (the data source's connections, the cache) when it stops.
        builder.Services.AddSingleton(_ => database);
        builder.Services.AddSingleton(_ => cache);

        builder.WebHost.ConfigureKestrel(options =>
        {
            options.AddServerHeader = false;
            ILogger engineLogger = options.ApplicationServices.GetRequiredService<ILoggerFactory>().CreateLogger("PlatformBenchmarks.Http");
            var router = new Router(database, cache);
            options.ConfigureEndpointDefaults(listen => listen.UseHttpApplication(router, limits, engineLogger));
        });

        DateHeader.Start();
        return builder.Build();
    }

    /// <summary>
    /// The transport kind is chosen once, here, from <c>Transport:Kind</c> (<see cref="TransportChooser"/>): Kestrel's
    /// sockets with their settings, or this project's loops, which then carry every IP endpoint.
    /// </summary>
    private static void UseTransport(WebApplicationBuilder builder, TransportOptions options, TransportSettings sockets)
    {
        try
        {
            options.Validate();
        }
        catch (ArgumentOutOfRangeException exception)
        {
            throw new SettingsException($"Configuration '{exception.ParamName}' cannot be {exception.ActualValue}.", exception);
        }

        TransportChoice choice = TransportChooser.Choose(options.Kind);
        builder.Services.AddSingleton(options);
        builder.Services.AddSingleton(choice);
        builder.WebHost.UseSockets(sockets.ApplyTo);
        if (choice.Kind != TransportKind.Sockets)
        {
            builder.Services.RemoveAll<IConnectionListenerFactory>();
            builder.Services.AddSingleton<IConnectionListenerFactory>(services =>
                new LinuxTransportFactory(choice.Kind, options, services.GetRequiredService<ILoggerFactory>(), services.GetService<TimeProvider>()));
        }
    }

    /// <summary>Binds a configuration section; a value of the wrong type (a duration that is not one) is a settings error.</summary>
    private static T? Bind<T>(Func<T?> bind)
        where T : class
    {
        try
        {
            return bind();
        }
        catch (InvalidOperationException exception)
        {
            throw new SettingsException(exception.Message, exception);
        }
    }
}

/// <summary>Kestrel socket transport settings, bound from the <c>Transport</c> section.</summary>
internal sealed class TransportSettings
{
    /// <summary>
    /// Wait for data before taking a receive buffer from the pool (saves memory on idle connections). Kept on: turning it
    /// off measured 6% slower on plaintext and 9% on json.
    /// </summary>
    public bool WaitForDataBeforeAllocatingBuffer { get; set; } = true;

    /// <summary>
    /// Run socket continuations inline on the I/O thread instead of queuing them to the thread pool. On by default:
    /// measured with scenarios/settings-matrix.sh on 2 cores, +11% pipelined plaintext (0.82 vs 0.94 µs of server CPU
    /// per response), json level, the database routes level within noise. Safe because no endpoint blocks: the
    /// database work is asynchronous.
    /// </summary>
    public bool UnsafePreferInlineScheduling { get; set; } = true;

    /// <summary>
    /// Number of I/O queues; 0 keeps Kestrel's default (the processor count, at most 16). On 2 cores, 1 queue measured
    /// 7% and 18% slower (plaintext, json) than the default 2, and 4 queues no better.
    /// </summary>
    public int IOQueueCount { get; set; }

    public void ApplyTo(SocketTransportOptions options)
    {
        options.WaitForDataBeforeAllocatingBuffer = WaitForDataBeforeAllocatingBuffer;
        options.UnsafePreferInlineScheduling = UnsafePreferInlineScheduling;
        if (IOQueueCount > 0)
        {
            options.IOQueueCount = IOQueueCount;
        }
    }
}
