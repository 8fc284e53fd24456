using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>
/// The addresses the host and the banner read: each bound address with the scheme its <c>urls</c> entry speaks, through
/// every way a caller reads a collection (LINQ hands an ICollection to its own CopyTo and Contains).
/// </summary>
public class BoundAddressesTests
{
    [Fact]
    public async Task EveryReadOfTheAddressesNamesEachListenerBySchemeItSpeaks()
    {
        var server = new FeaturesOnlyServer();
        var kestrel = new ServerAddressesFeature();
        server.Features.Set<IServerAddressesFeature>(kestrel);
        await new BoundAddresses.Installer(server, new ListenAddresses("http://127.0.0.1:8080;https://127.0.0.1:8443;h2c://127.0.0.1:8082"))
            .StartingAsync(CancellationToken.None);
        // Kestrel names every endpoint http:// and binds them in the order of urls.
        foreach (string bound in new[] { "http://127.0.0.1:8080", "http://127.0.0.1:8443", "http://127.0.0.1:8082" })
        {
            kestrel.Addresses.Add(bound);
        }

        ICollection<string> addresses = server.Features.Get<IServerAddressesFeature>()!.Addresses;
        string[] expected = ["http://127.0.0.1:8080", "https://127.0.0.1:8443", "h2c://127.0.0.1:8082"];

        Assert.Equal(expected, addresses.ToArray());
        Assert.Equal(expected, addresses.ToList());
        Assert.Contains("h2c://127.0.0.1:8082", addresses);
        Assert.DoesNotContain("http://127.0.0.1:8082", addresses);
        string[] copy = ["before", "", "", ""];
        addresses.CopyTo(copy, 1);
        Assert.Equal(["before", .. expected], copy);
        Assert.Throws<ArgumentOutOfRangeException>(() => addresses.CopyTo(new string[2], 0));
    }

    private sealed class FeaturesOnlyServer : IServer
    {
        public IFeatureCollection Features { get; } = new FeatureCollection();

        public void Dispose()
        {
        }

        public Task StartAsync<TContext>(IHttpApplication<TContext> application, CancellationToken cancellationToken)
            where TContext : notnull => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
