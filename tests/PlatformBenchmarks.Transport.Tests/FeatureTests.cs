using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http.Features;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>The connection as its own feature collection: what <see cref="FeatureCollection"/> does, without its dictionary.</summary>
public abstract class FeatureTests(TransportKind kind)
{
    [Fact]
    public async Task TheConnectionsOwnFeaturesAreTheConnection()
    {
        await WithFeaturesAsync(features =>
        {
            object connection = features.Get<IConnectionIdFeature>()!;
            Assert.IsType<TransportConnection>(connection);
            Assert.Same(connection, features.Get<IConnectionTransportFeature>());
            Assert.Same(connection, features.Get<IConnectionItemsFeature>());
            Assert.Same(connection, features.Get<IConnectionLifetimeFeature>());
            Assert.Same(connection, features.Get<IConnectionEndPointFeature>());
            Assert.Same(connection, features[typeof(ITransportLoopFeature)]);
            Assert.Null(features.Get<IFirst>());
            Assert.False(features.IsReadOnly);
            Assert.Equal(6, features.Count());
        });
    }

    [Fact]
    public async Task FeaturesSetAreFoundReplacedAndRemovedInAnyNumber()
    {
        await WithFeaturesAsync(features =>
        {
            // More than the list's first capacity, so it grows with entries in it.
            var first = new Extra();
            var others = new Extra();
            int revision = features.Revision;
            features.Set<IFirst>(first);
            features.Set<ISecond>(others);
            features.Set<IThird>(others);
            features.Set<IFourth>(others);
            features.Set<IFifth>(others);
            features[typeof(ISixth)] = others;
            Assert.Equal(revision + 6, features.Revision);
            Assert.Same(first, features.Get<IFirst>());
            Assert.Same(others, features.Get<ISixth>());
            Assert.Equal(12, features.Count());

            var replacement = new Extra();
            features.Set<IFirst>(replacement);
            Assert.Same(replacement, features.Get<IFirst>());
            features.Set<IThird>(null);
            Assert.Null(features.Get<IThird>());
            Assert.Same(others, features.Get<IFourth>());
            Assert.Equal(11, features.Count());
            Assert.DoesNotContain(features, pair => pair.Key == typeof(IThird));

            // Removing a type that was never set changes nothing but the revision, as FeatureCollection's does.
            features.Set<IThird>(null);
            Assert.Equal(11, features.Count());
            Assert.Equal(revision + 9, features.Revision);
        });
    }

    [Fact]
    public async Task AnOwnFeatureCanBeReplacedAndHidden()
    {
        await WithFeaturesAsync(features =>
        {
            object connection = features.Get<IConnectionItemsFeature>()!;
            var items = new ItemsFeature();
            features.Set<IConnectionItemsFeature>(items);
            Assert.Same(items, features.Get<IConnectionItemsFeature>());
            Assert.Single(features, pair => pair.Key == typeof(IConnectionItemsFeature));
            Assert.Same(items, features.Single(pair => pair.Key == typeof(IConnectionItemsFeature)).Value);

            features.Set<IConnectionItemsFeature>(null);
            Assert.Null(features.Get<IConnectionItemsFeature>());
            Assert.DoesNotContain(features, pair => pair.Key == typeof(IConnectionItemsFeature));
            Assert.Equal(5, features.Count());

            features[typeof(IConnectionItemsFeature)] = connection;
            Assert.Same(connection, features.Get<IConnectionItemsFeature>());
            Assert.Equal(6, features.Count());
            Assert.Throws<ArgumentNullException>(() => features[null!] = connection);
        });
    }

    [Fact]
    public async Task EachConnectionKnowsItsPeerAndHasNoDelay()
    {
        // More connections at once than the accepts io_uring keeps armed, so each entry its kernel writes a peer's
        // address into is reused while others are in flight.
        const int Count = 40;
        var seen = new System.Collections.Concurrent.ConcurrentDictionary<EndPoint, (EndPoint? Local, int NoDelay)>();
        var all = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            var transport = (TransportConnection)connection;
            seen[connection.RemoteEndPoint!] = (connection.LocalEndPoint, NoDelayOf(transport.Fd));
            if (seen.Count == Count)
            {
                all.TrySetResult();
            }

            await all.Task;
        });

        Socket[] clients = await Task.WhenAll(Enumerable.Range(0, Count).Select(_ => server.ConnectAsync()));
        try
        {
            await all.Task.WaitAsync(SocketExtensions.Patience);
            Assert.Equal(clients.Select(c => c.LocalEndPoint!).ToHashSet(), seen.Keys.ToHashSet());
            Assert.All(seen.Values, v => Assert.Equal(server.Listener.EndPoint, v.Local));
            Assert.All(seen.Values, v => Assert.NotEqual(0, v.NoDelay));
        }
        finally
        {
            foreach (Socket client in clients)
            {
                client.Dispose();
            }
        }
    }

    private static unsafe int NoDelayOf(int fd)
    {
        int value = 0;
        uint length = sizeof(int);
        Assert.Equal(0, Interop.Libc.GetSockOpt(fd, Interop.Libc.IPPROTO_TCP, Interop.Libc.TCP_NODELAY, &value, &length));
        return value;
    }

    /// <summary>Runs <paramref name="check"/> on a real connection's features.</summary>
    private async Task WithFeaturesAsync(Action<IFeatureCollection> check)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, connection =>
        {
            try
            {
                check(connection.Features);
                done.TrySetResult();
            }
            catch (Exception ex)
            {
                done.TrySetException(ex);
            }

            return Task.CompletedTask;
        });

        using Socket client = await server.ConnectAsync();
        await done.Task.WaitAsync(SocketExtensions.Patience);
    }

    private interface IFirst;

    private interface ISecond;

    private interface IThird;

    private interface IFourth;

    private interface IFifth;

    private interface ISixth;

    private sealed class Extra : IFirst, ISecond, IThird, IFourth, IFifth, ISixth;

    private sealed class ItemsFeature : IConnectionItemsFeature
    {
        public IDictionary<object, object?> Items { get; set; } = new Dictionary<object, object?>();
    }
}

public sealed class FeatureTestsOnIoUring() : FeatureTests(TransportKind.IoUring);

public sealed class FeatureTestsOnEpoll() : FeatureTests(TransportKind.Epoll);
