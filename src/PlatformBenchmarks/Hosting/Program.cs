using System.Net;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.Conformance;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Hosting;

internal static class Program
{
    public const string DefaultUrls = "http://*:8080";

    /// <summary>The exit code for a configuration value the server cannot run with.</summary>
    public const int SettingsExitCode = 2;

    public static async Task<int> Main(string[] args)
    {
        if (ServerSettings.IsHelpRequested(args))
        {
            await Console.Out.WriteAsync(Usage.Text);
            return 0;
        }

        WebApplication app;
        try
        {
            // The one place the system's clock is chosen; everything that reads or waits on time gets it from here.
            app = BuildApplication(args, TimeProvider.System, warmUpBeforeReady: true);
        }
        catch (SettingsException exception)
        {
            await Console.Error.WriteLineAsync($"PlatformBenchmarks: {exception.Message}");
            return SettingsExitCode;
        }

        await using (app.ConfigureAwait(false))
        {
            // The start includes the warm-up and the banner (StartUpWarmUp), before the host's ready line.
            if (await StartupFailure.TryStartAsync(app) is { } failure)
            {
                await Console.Error.WriteLineAsync($"PlatformBenchmarks: {failure}");
                return SettingsExitCode;
            }

            await app.WaitForShutdownAsync();
        }

        return 0;
    }

    /// <summary>
    /// The host: Kestrel with the transport <c>Transport:Kind</c> chooses, whose endpoints all hand their connections to
    /// this project's HTTP engine. Configuration comes from appsettings.json, environment variables and the command
    /// line, through the options pattern (<see cref="ServerSettings"/>); a value the server cannot run with throws
    /// <see cref="SettingsException"/> here, before any socket is opened. Every clock in the server is <paramref name="time"/>.
    /// </summary>
    public static WebApplication BuildApplication(string[] args, TimeProvider time) => BuildApplication(args, time, warmUpBeforeReady: false);

    /// <param name="args">The command line.</param>
    /// <param name="time">Every clock in the server.</param>
    /// <param name="warmUpBeforeReady">
    /// Main's host: its start probes the database, warms the cache and prints the banner before the host's ready line
    /// (<see cref="StartUpWarmUp"/>). The tests' in-process hosts leave it out: no banner amid their output.
    /// </param>
    internal static WebApplication BuildApplication(string[] args, TimeProvider time, bool warmUpBeforeReady)
    {
        ArgumentNullException.ThrowIfNull(time);
        ServerSettings.CheckArguments(args);
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions
        {
            Args = args,
            ContentRootPath = AppContext.BaseDirectory,
        });

        ConfigurationManager configuration = builder.Configuration;
        ServerSettings.CheckKeys(configuration);
        builder.WebHost.UseUrls(ServerSettings.CheckUrls(configuration["urls"] ?? DefaultUrls));
        builder.Services.AddServerSettings(configuration);
        builder.Services.AddSingleton(time);
        // Main prints a failed start (a port in use, say) as one line; the host's own report of it is a stack trace.
        builder.Logging.AddFilter("Microsoft.Extensions.Hosting.Internal.Host", LogLevel.Critical);
        UseTransport(builder);
        if (warmUpBeforeReady)
        {
            builder.Services.AddHostedService<StartUpWarmUp>();
        }

        builder.Services.AddSingleton(services => new DateHeader(services.GetRequiredService<TimeProvider>()));
        builder.Services.AddSingleton(services => new HttpServerContext(
            services.GetRequiredService<IOptions<HttpLimits>>().Value,
            services.GetRequiredService<TimeProvider>(),
            services.GetRequiredService<DateHeader>(),
            services.GetRequiredService<ILoggerFactory>().CreateLogger("PlatformBenchmarks.Http")));
        // The host disposes these when it stops (the data source's connections, the cache, the Date timer).
        builder.Services.AddSingleton(services => new Database(
            services.GetRequiredService<IOptions<DatabaseOptions>>().Value, services.GetRequiredService<TimeProvider>(), services.GetRequiredService<ILoggerFactory>().CreateLogger(Database.LogCategory)));
        builder.Services.AddSingleton(services => new WorldCache(
            services.GetRequiredService<Database>(), services.GetRequiredService<TimeProvider>()));
        builder.Services.AddSingleton(services => new StaticFiles(
            services.GetRequiredService<IOptions<HttpArenaOptions>>().Value.StaticPath, services.GetRequiredService<TimeProvider>()));

        // Read once, at start-up: a dataset that cannot be read leaves /json/{count} answering 503, and the banner says why.
        builder.Services.AddSingleton(services =>
        {
            HttpArenaOptions arena = services.GetRequiredService<IOptions<HttpArenaOptions>>().Value;
            return new HttpArenaRoutes(
                Dataset.Load(arena.DatasetPath), arena.MaxUploadSize, services.GetRequiredService<StaticFiles>(), new ResponseCompression(arena.Gzip), services.GetRequiredService<Database>());
        });

        // The application's rooms, TFB's first: its routes are asked most, and the first route that matches wins.
        builder.Services.AddSingleton(services => new RouteTable(
            new TfbRoutes(services.GetRequiredService<Database>(), services.GetRequiredService<WorldCache>()),
            services.GetRequiredService<HttpArenaRoutes>(),
            new ConformanceRoutes()));

        builder.WebHost.ConfigureKestrel(options =>
        {
            options.AddServerHeader = false;
            IServiceProvider services = options.ApplicationServices;
            var router = new Router(services.GetRequiredService<RouteTable>());
            HttpServerContext context = services.GetRequiredService<HttpServerContext>();

            // This project's loops half-close when the engine completes a connection's output; Kestrel's sockets close
            // both directions. The loops claim every IP endpoint, and 'urls' takes only IP addresses (and localhost),
            // so the kind chosen carries every connection.
            bool transportHalfCloses = services.GetRequiredService<TransportChoice>().Kind != TransportKind.Sockets;
            options.ConfigureEndpointDefaults(listen => listen.UseHttpApplication(router, context, transportHalfCloses, LoopOf));
        });

        return ServerSettings.BuildValidated(builder);
    }

    /// <summary>
    /// The loop a connection of this project's transport runs on, for its handlers (the data layer batches reads per
    /// loop); Kestrel's sockets have none.
    /// </summary>
    private static ConnectionLoop LoopOf(ConnectionContext connection) =>
        connection.Features.Get<ITransportLoopFeature>() is { } loop ? new ConnectionLoop(loop.NextTurn, loop.LoopIndex, loop.LoopThreadId) : default;

    /// <summary>
    /// The transport kind is chosen once, when the host starts, from <c>Transport:Kind</c> (<see cref="TransportChooser"/>):
    /// Kestrel's sockets with their settings (the <c>Sockets</c> section), or this project's loops, which then carry every
    /// IP endpoint.
    /// </summary>
    private static void UseTransport(WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton(services =>
        {
            TransportChoice choice = TransportChooser.Choose(services.GetRequiredService<IOptions<LinuxTransportOptions>>().Value.Kind);
            // Kestrel asks for the choice before it binds, and the database connects later still: no socket exists yet.
            SocketCompletions.Configure();
            return choice;
        });
        builder.WebHost.UseSockets();
        builder.Services.AddOptions<SocketTransportOptions>().Configure<IOptions<KestrelSocketSettings>>((options, settings) => settings.Value.ApplyTo(options));
        builder.Services.RemoveAll<IConnectionListenerFactory>();
        builder.Services.AddSingleton<IConnectionListenerFactory>(services =>
        {
            TransportChoice choice = services.GetRequiredService<TransportChoice>();
            return choice.Kind == TransportKind.Sockets
                ? new SocketTransportFactory(services.GetRequiredService<IOptions<SocketTransportOptions>>(), services.GetRequiredService<ILoggerFactory>())
                : new LinuxTransportFactory(choice.Kind, services.GetRequiredService<IOptions<LinuxTransportOptions>>().Value, services.GetRequiredService<ILoggerFactory>(), services.GetRequiredService<TimeProvider>());
        });
    }
}
