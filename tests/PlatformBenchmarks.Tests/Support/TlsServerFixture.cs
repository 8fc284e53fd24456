using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using Microsoft.Extensions.DependencyInjection;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>The real server with one https:// listener on an ephemeral loopback port, with a certificate made for it.</summary>
public class TlsServerFixture : ServerFixture
{
    private readonly TransportKind _kind;
    private readonly TimeProvider _time;
    private readonly IReadOnlyList<string> _settings;

    public TlsServerFixture(TransportKind kind, TimeProvider? time = null, params string[] settings)
    {
        _kind = kind;
        _time = time ?? TimeProvider.System;
        _settings = settings;
        Certificate = TestCertificate.Create();
    }

    public TestCertificate Certificate { get; }

    public TlsServer Tls => Services.GetRequiredService<TlsServer>();

    protected override IReadOnlyList<string> Settings =>
        ["--urls", "https://127.0.0.1:0", "--Transport:Kind", _kind.ToString(), .. Certificate.Settings, .. _settings];

    protected override TimeProvider Time => _time;

    /// <summary>A TLS connection, handshaken, offering <paramref name="protocols"/> in ALPN.</summary>
    public async Task<SslStream> ConnectTlsAsync(params string[] protocols)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(IPAddress.Loopback, Port);
        var ssl = new SslStream(new NetworkStream(socket, ownsSocket: true));
        using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await ssl.AuthenticateAsClientAsync(Certificate.ClientOptions(protocols), deadline.Token);
        return ssl;
    }

    public override async Task DisposeAsync()
    {
        await base.DisposeAsync();
        Certificate.Dispose();
    }
}
