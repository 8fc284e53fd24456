using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using PlatformBenchmarks.Hosting;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// The real server, as Program builds it, listening on an ephemeral loopback port in the test process, with the local
/// PostgreSQL (or the ConnectionString environment variable) as its database. Starting the database is the test
/// command's job (scripts/test.sh).
/// </summary>
public class ServerFixture : IAsyncLifetime
{
    private WebApplication? _app;

    /// <summary>Configuration on top of the defaults, as command-line arguments.</summary>
    protected virtual IReadOnlyList<string> Settings => [];

    /// <summary>The server's clock: the system's, as in production, unless a fixture drives the server's timers itself.</summary>
    protected virtual TimeProvider Time => TimeProvider.System;

    public int Port { get; private set; }

    /// <summary>The running server's services.</summary>
    public IServiceProvider Services => _app!.Services;

    public Uri BaseAddress => new($"http://127.0.0.1:{Port}/");

    public async Task InitializeAsync()
    {
        // The host's lifetime lines (listening, started, stopping) would land in the test output between the tests' own
        // lines, once per fixture; warnings and errors still show.
        _app = Program.BuildApplication(
            ["--urls", "http://127.0.0.1:0", "--ConnectionString", Data.TestDatabase.ConnectionString, "--Logging:LogLevel:Microsoft.Hosting.Lifetime", "Warning", .. Settings],
            Time);
        await _app.StartAsync();
        string address = _app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        Port = new Uri(address).Port;
    }

    public virtual async Task DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.StopAsync();
            await _app.DisposeAsync();
        }
    }

    /// <summary>One request on a fresh connection, as TFB's verifier makes them.</summary>
    internal async Task<RawResponse> GetAsync(string target, string method = "GET")
    {
        using RawClient client = await ConnectAsync();
        await client.SendAsync($"{method} {target} HTTP/1.1\r\nHost: tfb-server\r\nAccept: */*\r\n\r\n");
        return (await client.ReadAsync(head: method == "HEAD"))!;
    }

    /// <summary>A raw TCP connection to the server.</summary>
    public async Task<RawClient> ConnectAsync()
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(IPAddress.Loopback, Port);
        return new RawClient(socket);
    }
}

public sealed class RawClient : IDisposable
{
    private readonly Socket _socket;

    internal RawClient(Socket socket)
    {
        _socket = socket;
        Stream = new NetworkStream(socket, ownsSocket: true);
    }

    public NetworkStream Stream { get; }

    public async Task SendAsync(string text) => await Stream.WriteAsync(Requests.Bytes(text));

    /// <summary>Completes once the server's first bytes have arrived, leaving them unread (a peek).</summary>
    public async Task ServerHasSentAsync()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await _socket.ReceiveAsync(new byte[1], SocketFlags.Peek, timeout.Token);
    }

    internal Task<RawResponse?> ReadAsync(bool head = false) =>
        RawResponse.ReadAsync(Stream, head, new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token);

    /// <summary>True when the server closed the connection (the next read sees end of stream).</summary>
    public async Task<bool> IsClosedByServerAsync()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        byte[] one = new byte[1];
        try
        {
            return await Stream.ReadAsync(one, timeout.Token) == 0;
        }
        catch (IOException)
        {
            return true;
        }
    }

    public void ShutdownSend() => _socket.Shutdown(SocketShutdown.Send);

    public void Reset()
    {
        _socket.LingerState = new LingerOption(true, 0);
        _socket.Close();
    }

    public void Dispose() => Stream.Dispose();
}

/// <summary>Test classes that share one server instance rather than starting one each.</summary>
[CollectionDefinition(Name)]
public sealed class SharedServer : ICollectionFixture<ServerFixture>
{
    public const string Name = "Shared server";
}
