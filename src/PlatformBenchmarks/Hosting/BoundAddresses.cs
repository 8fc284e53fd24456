using System.Collections;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// The server's bound addresses as everyone outside Kestrel reads them (the host's <c>Now listening on:</c> lines, the
/// banner, <c>WebApplication.Urls</c>), with <c>https://</c> for the addresses of <c>urls</c> that speak TLS and
/// <c>h2c://</c> for those that speak HTTP/2 by prior knowledge. Kestrel
/// names an endpoint https:// only when its own HTTPS middleware is used, and the TLS layer is ours
/// (docs/decisions/0016-tls-layer.md). Kestrel binds from its own copy of the feature, so this one only changes what is read.
/// </summary>
internal sealed class BoundAddresses : IServerAddressesFeature, ICollection<string>
{
    private const string Http = "http://";
    private const string Https = "https://";
    private const string H2c = "h2c://";

    private readonly IServerAddressesFeature _kestrel;
    private readonly ListenAddresses _configured;

    private BoundAddresses(IServerAddressesFeature kestrel, ListenAddresses configured)
    {
        _kestrel = kestrel;
        _configured = configured;
    }

    /// <summary>
    /// Puts the corrected view in place of Kestrel's in the server's features when the host begins to start: before the
    /// host's web service reads the feature, which it does first thing in its start and once.
    /// </summary>
    internal sealed class Installer(IServer server, ListenAddresses configured) : IHostedLifecycleService
    {
        public Task StartingAsync(CancellationToken cancellationToken)
        {
            if (configured.All.Any(address => address.Tls || address.H2c) && server.Features.Get<IServerAddressesFeature>() is { } kestrel and not BoundAddresses)
            {
                server.Features.Set<IServerAddressesFeature>(new BoundAddresses(kestrel, configured));
            }

            return Task.CompletedTask;
        }

        public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }

    public ICollection<string> Addresses => this;

    public bool PreferHostingUrls
    {
        get => _kestrel.PreferHostingUrls;
        set => _kestrel.PreferHostingUrls = value;
    }

    public int Count => _kestrel.Addresses.Count;

    public bool IsReadOnly => _kestrel.Addresses.IsReadOnly;

    // Before the start the host copies 'urls' in and the start-up filter empties it again: both go to Kestrel's copy.
    public void Add(string item) => _kestrel.Addresses.Add(item);

    public void Clear() => _kestrel.Addresses.Clear();

    public bool Remove(string item) => _kestrel.Addresses.Remove(item);

    // Both walk the enumerator themselves: LINQ's Contains and ToList hand an ICollection<T> back to its own Contains and
    // CopyTo, which would call themselves until the stack runs out.
    public bool Contains(string item)
    {
        foreach (string address in this)
        {
            if (string.Equals(address, item, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    public void CopyTo(string[] array, int arrayIndex)
    {
        ArgumentNullException.ThrowIfNull(array);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(Count, array.Length - arrayIndex, nameof(arrayIndex));
        foreach (string address in this)
        {
            array[arrayIndex++] = address;
        }
    }

    /// <summary>
    /// Kestrel binds one endpoint per address of <c>urls</c>, in their order (Program.Listen), and names each by one
    /// address: the n-th bound address is the n-th configured one.
    /// </summary>
    public IEnumerator<string> GetEnumerator()
    {
        int index = 0;
        foreach (string address in _kestrel.Addresses)
        {
            yield return index < _configured.All.Count && (_configured.All[index].Tls || _configured.All[index].H2c) && address.StartsWith(Http, StringComparison.Ordinal)
                ? string.Concat(_configured.All[index].Tls ? Https : H2c, address.AsSpan(Http.Length))
                : address;
            index++;
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
