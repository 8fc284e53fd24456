using System.Net;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.Conformance;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Http.Tls.OpenSsl;
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
            if (await StartupFailure.TryStartAsync(app, app.Services.GetRequiredService<ListenAddresses>().Urls) is { } failure)
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
        var addresses = new ListenAddresses(configuration["urls"] ?? DefaultUrls);
        builder.Services.AddSingleton(addresses);
        // Each address is bound below as an endpoint of its own, which says whether it speaks TLS. The host copies 'urls'
        // into the server's addresses as well, and Kestrel would warn that its endpoints override them.
        builder.Services.AddTransient<IStartupFilter, EndpointsOnly>();
        builder.Services.AddHostedService<BoundAddresses.Installer>();
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
        builder.Services.AddSingleton(services =>
        {
            TlsOptions tls = services.GetRequiredService<IOptions<TlsOptions>>().Value;
            return new TlsServer(
                TlsCertificateFiles.Load(tls.CertificatePath!, tls.KeyPath!), tls, services.GetRequiredService<TimeProvider>(), services.GetRequiredService<ILoggerFactory>().CreateLogger("PlatformBenchmarks.Tls"));
        });
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
            foreach (ListenAddress address in addresses.All)
            {
                // TLS first: it is the codec's transport (transport -> TLS -> HTTP/1.1).
                Listen(options, address, listen =>
                {
                    if (address.H2c)
                    {
                        listen.UseHttp2PriorKnowledge(router, context, LoopOf);
                        return;
                    }

                    (address.Tls ? listen.UseTls(services.GetRequiredService<TlsServer>) : listen)
                        .UseHttpApplication(router, context, transportHalfCloses, LoopOf);
                });
            }
        });

        WebApplication app = ServerSettings.BuildValidated(builder);
        if (addresses.All.FirstOrDefault(address => address.Tls) is { } tlsAddress)
        {
            RequireCertificate(app.Services, tlsAddress);
        }

        return app;
    }

    /// <summary>
    /// A TLS listener needs its certificate before any socket is opened: read now, so that a missing or unreadable file
    /// stops the start with one line naming it.
    /// </summary>
    private static void RequireCertificate(IServiceProvider services, ListenAddress address)
    {
        TlsOptions tls = services.GetRequiredService<IOptions<TlsOptions>>().Value;
        if (string.IsNullOrEmpty(tls.CertificatePath))
        {
            throw new SettingsException(
                $"Configuration 'urls': '{address.Url}' needs a certificate: set TLS_CERT and TLS_KEY (PEM files), or Tls:CertificatePath and Tls:KeyPath.");
        }

        try
        {
            _ = services.GetRequiredService<TlsServer>();
        }
        catch (Exception exception) when (exception is TlsCertificateException or TlsEngineException)
        {
            throw new SettingsException(exception.Message, exception);
        }
    }

    /// <summary>
    /// Runs after the host has copied <c>urls</c> into the server's addresses and before the server starts: empties them,
    /// so that Kestrel binds the endpoints (each from one of those addresses) without a warning that they override them.
    /// </summary>
    private sealed class EndpointsOnly(IServer server) : IStartupFilter
    {
        public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next)
        {
            server.Features.Get<IServerAddressesFeature>()?.Addresses.Clear();
            return next;
        }
    }

    /// <summary>Binds one address of <c>urls</c> as Kestrel would have read it: every interface, loopback, or the IP address.</summary>
    private static void Listen(KestrelServerOptions options, ListenAddress address, Action<ListenOptions> configure)
    {
        if (address.Host is "*" or "+")
        {
            options.ListenAnyIP(address.Port, configure);
        }
        else if (address.Host.Equals("localhost", StringComparison.OrdinalIgnoreCase))
        {
            options.ListenLocalhost(address.Port, configure);
        }
        else
        {
            options.Listen(IPAddress.Parse(address.Host.Trim('[', ']')), address.Port, configure);
        }
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
