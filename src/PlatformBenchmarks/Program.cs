using System.Net;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks;

internal static class Program
{
    public const string DefaultUrls = "http://*:8080";

    public static async Task Main(string[] args)
    {
        WebApplication app = BuildApplication(args);
        await using (app.ConfigureAwait(false))
        {
            await app.StartAsync();
            Banner.Print(app);
            await app.WaitForShutdownAsync();
        }
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

        var transport = configuration.GetSection("Transport").Get<TransportSettings>() ?? new TransportSettings();
        builder.WebHost.UseSockets(options => transport.ApplyTo(options));
        builder.Services.AddSingleton(transport);

        var limits = configuration.GetSection("Http").Get<HttpLimits>() ?? new HttpLimits();
        builder.Services.AddSingleton(limits);

        builder.WebHost.ConfigureKestrel(options =>
        {
            options.AddServerHeader = false;
            ILogger engineLogger = options.ApplicationServices.GetRequiredService<ILoggerFactory>().CreateLogger("PlatformBenchmarks.Http");
            var router = new Router();
            options.ConfigureEndpointDefaults(listen => listen.UseHttpApplication(router, limits, engineLogger));
        });

        DateHeader.Start();
        return builder.Build();
    }
}

/// <summary>Kestrel socket transport settings, bound from the <c>Transport</c> section.</summary>
internal sealed class TransportSettings
{
    /// <summary>Wait for data before taking a receive buffer from the pool (saves memory on idle connections).</summary>
    public bool WaitForDataBeforeAllocatingBuffer { get; set; } = true;

    /// <summary>Run socket continuations inline on the I/O thread instead of queuing them to the thread pool.</summary>
    public bool UnsafePreferInlineScheduling { get; set; }

    /// <summary>Number of I/O queues; 0 keeps Kestrel's default (the processor count, at most 16).</summary>
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
