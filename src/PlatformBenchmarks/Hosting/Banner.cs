using System.Reflection;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.Options;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Hosting;

/// <summary>The start-up banner: what is running, how, and where.</summary>
internal static class Banner
{
    public static void Print(IServiceProvider services, Data.DatabaseStatus database, Data.DatabaseStatus cache)
    {
        string version = typeof(Banner).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown";
        KestrelSocketSettings sockets = services.GetRequiredService<IOptions<KestrelSocketSettings>>().Value;
        ICollection<string> addresses = services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses ?? [];

        var text = new System.Text.StringBuilder();
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"PlatformBenchmarks {version}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Runtime:    {RuntimeInformation.FrameworkDescription} {RuntimeInformation.RuntimeIdentifier}{(RuntimeFeature.IsDynamicCodeSupported ? string.Empty : " (Native AOT)")}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  GC:         {(GCSettings.IsServerGC ? "Server" : "Workstation")}, {GCSettings.LatencyMode}, dynamic adaptation {DescribeDatas()}, gen0 budget {DescribeGen0Budget()}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Processors: {Environment.ProcessorCount}");
        TransportChoice choice = services.GetRequiredService<Transport.TransportChoice>();
        text.AppendLine(choice.Kind == Transport.TransportKind.Sockets
            ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"  Transport:  sockets ({choice.Reason}), wait for data {sockets.WaitForDataBeforeAllocatingBuffer}, inline scheduling {sockets.UnsafePreferInlineScheduling}, I/O queues {(sockets.IOQueueCount > 0 ? sockets.IOQueueCount : Math.Min(Environment.ProcessorCount, 16))}")
            : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"  Transport:  {choice.Kind.ToString().ToLowerInvariant()} ({choice.Reason}), {services.GetRequiredService<IOptions<Transport.LinuxTransportOptions>>().Value.EffectiveThreadCount} loop threads"));
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Sockets:    completions {Hosting.SocketCompletions.Description}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Listening:  {string.Join(", ", Schemes(addresses, services.GetRequiredService<ListenAddresses>()))}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Routes:     {string.Join(" ", services.GetRequiredService<RouteTable>().Forms)}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Database:   {(database.IsAvailable ? "available" : "UNAVAILABLE (database routes answer 503 until it is back)")}: {database.Description}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Cache:      {cache.Description}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Dataset:    {services.GetRequiredService<HttpArenaRoutes>().Dataset.Description}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Static:     {services.GetRequiredService<StaticFiles>().Describe()}");
        text.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"  Compress:   {services.GetRequiredService<HttpArenaRoutes>().Compression.Description}");
        Console.Out.Write(text.ToString());
        Console.Out.Flush();
    }

    /// <summary>
    /// The bound addresses with the scheme each speaks: Kestrel names every endpoint http:// unless its own HTTPS is used,
    /// and binds one per address of <c>urls</c>, in order.
    /// </summary>
    private static IEnumerable<string> Schemes(ICollection<string> bound, ListenAddresses configured)
        => bound.Select((address, index) => index < configured.All.Count && (configured.All[index].Tls || configured.All[index].H2c) && address.StartsWith("http://", StringComparison.Ordinal)
            ? string.Concat(configured.All[index].Tls ? "https://" : "h2c://", address.AsSpan("http://".Length))
            : address);

    private static string DescribeGen0Budget() =>
        GC.GetConfigurationVariables().TryGetValue("GCGen0MaxBudget", out object? budget) && budget is not null && Convert.ToInt64(budget, System.Globalization.CultureInfo.InvariantCulture) is > 0 and long bytes
            ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"at most {bytes / 1024} KiB per heap")
            : "the runtime's";

    private static string DescribeDatas()
    {
        IReadOnlyDictionary<string, object> gc = GC.GetConfigurationVariables();
        return gc.TryGetValue("GCDynamicAdaptationMode", out object? mode) && mode is not null
            ? (Convert.ToInt64(mode, System.Globalization.CultureInfo.InvariantCulture) == 1 ? "on" : "off")
            : "off";
    }
}
