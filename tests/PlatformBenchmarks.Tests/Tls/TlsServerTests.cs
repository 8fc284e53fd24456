using System.Net;
using System.Net.Http;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Text;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// HTTP/1.1 over TLS end to end, with independent clients (<see cref="SslStream"/> with ALPN, <see cref="HttpClient"/>):
/// every kind of transport carries the TLS layer, with each of its engines, which carries the HTTP engine unchanged.
/// </summary>
public abstract class TlsServerTests(TlsServerFixture server, TlsEngine engine)
{
    private const string PlaintextResponse =
        "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: *\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";

    private const string JsonResponse =
        "HTTP/1.1 200 OK\r\nServer: PB\r\nDate: *\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{\"message\":\"Hello, World!\"}";

    private static CancellationToken Deadline => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;

    [Fact]
    public void TheConfiguredEngineCarriesTheConnections() => Assert.Equal(engine, server.Tls.Engine);

    [Fact]
    public async Task PlaintextAndJsonAreAnsweredOverTlsWithAlpnHttp11()
    {
        await using SslStream tls = await server.ConnectTlsAsync("http/1.1");

        Assert.Equal(SslApplicationProtocol.Http11, tls.NegotiatedApplicationProtocol);
        Assert.True(tls.SslProtocol is SslProtocols.Tls12 or SslProtocols.Tls13);
        await tls.WriteAsync(Requests.Bytes(Requests.Plaintext));
        Assert.Equal(PlaintextResponse, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.WithoutDate());
        await tls.WriteAsync(Requests.Bytes(Requests.Json));
        Assert.Equal(JsonResponse, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.WithoutDate());
    }

    [Fact]
    public async Task SixteenPipelinedRequestsInOneRecordAreAnsweredInOrder()
    {
        await using SslStream tls = await server.ConnectTlsAsync("http/1.1");

        await tls.WriteAsync(Requests.Bytes(string.Concat(Enumerable.Repeat(Requests.Plaintext + Requests.Json, 8))));

        for (int i = 0; i < 8; i++)
        {
            Assert.Equal(PlaintextResponse, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.WithoutDate());
            Assert.Equal(JsonResponse, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.WithoutDate());
        }
    }

    [Fact]
    public async Task ARequestSplitAcrossTlsRecordsIsAnswered()
    {
        await using SslStream tls = await server.ConnectTlsAsync("http/1.1");
        byte[] request = Requests.Bytes(Requests.Json);

        // Each write is a record of its own: the head arrives in pieces of 7 bytes, each decrypted on its own.
        for (int offset = 0; offset < request.Length; offset += 7)
        {
            await tls.WriteAsync(request.AsMemory(offset, Math.Min(7, request.Length - offset)));
            await tls.FlushAsync();
        }

        Assert.Equal(JsonResponse, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.WithoutDate());
    }

    [Fact]
    public async Task HttpClientPostsABodyOverTlsAndGetsItBack()
    {
        using HttpClient client = CreateClient();
        string body = string.Concat(Enumerable.Repeat("0123456789abcdef", 4096)); // 64 KiB: several records each way

        using HttpResponseMessage echoed = await client.PostAsync(new Uri("/", UriKind.Relative), new StringContent(body, Encoding.ASCII, "text/plain"));
        using HttpResponseMessage json = await client.GetAsync(new Uri("/json", UriKind.Relative));

        Assert.Equal(HttpStatusCode.OK, echoed.StatusCode);
        Assert.Equal(body, await echoed.Content.ReadAsStringAsync());
        Assert.Equal(new Version(1, 1), json.Version);
        Assert.Equal("{\"message\":\"Hello, World!\"}", await json.Content.ReadAsStringAsync());
    }

    [Theory]
    [InlineData("spdy/3")]
    [InlineData("h3", "spdy/3")]
    [InlineData]
    public async Task AClientOfferingNeitherProtocolOrNoAlpnGetsHttp11WithoutAlpn(params string[] protocols)
    {
        await using SslStream tls = await server.ConnectTlsAsync(protocols);

        Assert.Equal(default, tls.NegotiatedApplicationProtocol);
        await tls.WriteAsync(Requests.Bytes(Requests.Plaintext));
        Assert.Equal(PlaintextResponse, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.WithoutDate());
    }

    [Fact]
    public async Task ConnectionCloseEndsWithTheServersCloseNotifyBeforeItsFin()
    {
        // TLS 1.2, whose alert records show their type on the wire (1.3 hides it): the close_notify (RFC 5246 §7.2.1) is
        // the alert record the server sends after the response and before the end of the stream.
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(IPAddress.Loopback, server.Port);
        var wire = new RecordingStream(new NetworkStream(socket, ownsSocket: false));
        await using var tls = new SslStream(wire);
        SslClientAuthenticationOptions options = server.Certificate.ClientOptions("http/1.1");
        options.EnabledSslProtocols = SslProtocols.Tls12;
        await tls.AuthenticateAsClientAsync(options, Deadline);

        await tls.WriteAsync(Requests.Bytes("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
        Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.Status);

        Assert.Equal(0, await tls.ReadAsync(new byte[1], Deadline));
        // Handshake (22), change cipher spec (20), application data (23), then the alert (21), and nothing after it.
        List<byte> types = RecordTypes(wire.Received);
        Assert.Equal([23, 21], types[^2..]);
    }

    /// <summary>The content type of each whole TLS record in <paramref name="wire"/> (RFC 5246 §6.2.1).</summary>
    private static List<byte> RecordTypes(List<byte> wire)
    {
        var types = new List<byte>();
        for (int offset = 0; offset + 5 <= wire.Count; offset += 5 + ((wire[offset + 3] << 8) | wire[offset + 4]))
        {
            types.Add(wire[offset]);
        }

        return types;
    }

    [Fact]
    public async Task AClientsCloseNotifyClosesTheConnection()
    {
        await using SslStream tls = await server.ConnectTlsAsync("http/1.1");
        await tls.WriteAsync(Requests.Bytes(Requests.Plaintext));
        Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.Status);

        await tls.ShutdownAsync();

        // The server reads the end of the client's sending and closes with its own close_notify: a clean end of stream.
        Assert.Equal(0, await tls.ReadAsync(new byte[1], Deadline));
    }

    [Theory]
    [InlineData("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n")]
    [InlineData("\u0016\u0003\u0001\u0000\u0005\u0001\u0000\u0000")]
    [InlineData("\u0016\u0003\u0001\u00ff\u00ff")]
    [InlineData("\u0016\u0003\u0001\u0000\u0030\u0001\u0000\u0000\u002c\u0003\u0003")]
    public async Task AGarbageOrTruncatedClientHelloClosesThatConnectionOnly(string hello)
    {
        await using SslStream established = await server.ConnectTlsAsync("http/1.1");
        using RawClient raw = await server.ConnectAsync();

        await raw.SendAsync(hello);
        raw.ShutdownSend();

        // Closed, after at most a fatal alert record (RFC 8446 §6.2; OpenSSL sends record_overflow for a length past 2^14).
        byte[] received = await ReceivedUntilClosedAsync(raw);
        Assert.True(received.Length == 0 || (received.Length == 7 && received[0] == 21 && received[5] == 2), Convert.ToHexString(received));
        await established.WriteAsync(Requests.Bytes(Requests.Plaintext));
        Assert.Equal(PlaintextResponse, (await RawResponse.ReadAsync(established, cancellationToken: Deadline))!.WithoutDate());
        await using SslStream fresh = await server.ConnectTlsAsync("http/1.1");
        await fresh.WriteAsync(Requests.Bytes(Requests.Json));
        Assert.Equal(JsonResponse, (await RawResponse.ReadAsync(fresh, cancellationToken: Deadline))!.WithoutDate());
    }

    /// <summary>Everything the server sends until it closes the connection (end of stream or a reset).</summary>
    private static async Task<byte[]> ReceivedUntilClosedAsync(RawClient raw)
    {
        var received = new List<byte>();
        byte[] buffer = new byte[64];
        try
        {
            int count;
            while ((count = await raw.Stream.ReadAsync(buffer, Deadline)) > 0 && received.Count < 1024)
            {
                received.AddRange(buffer.AsSpan(0, count));
            }
        }
        catch (IOException)
        {
        }

        return [.. received];
    }

    [Fact]
    public async Task Tls12OffersOnlyForwardSecretAeadSuites()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // Cipher suite policies are chosen per process on Linux (and macOS) only.
        }

        SslClientAuthenticationOptions cbc = server.Certificate.ClientOptions();
        cbc.EnabledSslProtocols = SslProtocols.Tls12;
        cbc.CipherSuitesPolicy = new CipherSuitesPolicy([TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA]);
        SslClientAuthenticationOptions gcm = server.Certificate.ClientOptions();
        gcm.EnabledSslProtocols = SslProtocols.Tls12;
        gcm.CipherSuitesPolicy = new CipherSuitesPolicy([TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]);

        await Assert.ThrowsAnyAsync<Exception>(() => HandshakeAsync(cbc));
        Assert.Equal(TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, await HandshakeAsync(gcm));
    }

    private async Task<TlsCipherSuite> HandshakeAsync(SslClientAuthenticationOptions options)
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(IPAddress.Loopback, server.Port);
        await using var tls = new SslStream(new NetworkStream(socket, ownsSocket: false));
        await tls.AuthenticateAsClientAsync(options, Deadline);
        return tls.NegotiatedCipherSuite;
    }

    private HttpClient CreateClient()
    {
        var handler = new SocketsHttpHandler { SslOptions = server.Certificate.ClientOptions() };
        return new HttpClient(handler)
        {
            BaseAddress = new Uri($"https://localhost:{server.Port}/"),
            DefaultRequestVersion = HttpVersion.Version11,
            DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
    }

    /// <summary>A stream that keeps every byte it reads, to see the records on the wire.</summary>
    private sealed class RecordingStream(Stream inner) : PassThroughStream(inner)
    {
        public List<byte> Received { get; } = [];

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            int count = await Inner.ReadAsync(buffer, cancellationToken);
            Received.AddRange(buffer.Span[..count]);
            return count;
        }
    }
}

public class IoUringTlsServerTests(IoUringTlsServerTests.Server server) : TlsServerTests(server, TlsEngine.SslStream), IClassFixture<IoUringTlsServerTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.IoUring, null, "--Tls:Engine", nameof(TlsEngine.SslStream));
}

public class IoUringOpenSslTlsServerTests(IoUringOpenSslTlsServerTests.Server server) : TlsServerTests(server, TlsEngine.OpenSsl), IClassFixture<IoUringOpenSslTlsServerTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.IoUring, null, "--Tls:Engine", nameof(TlsEngine.OpenSsl));
}

public class EpollTlsServerTests(EpollTlsServerTests.Server server) : TlsServerTests(server, TlsEngine.SslStream), IClassFixture<EpollTlsServerTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.Epoll, null, "--Tls:Engine", nameof(TlsEngine.SslStream));
}

public class EpollOpenSslTlsServerTests(EpollOpenSslTlsServerTests.Server server) : TlsServerTests(server, TlsEngine.OpenSsl), IClassFixture<EpollOpenSslTlsServerTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.Epoll, null, "--Tls:Engine", nameof(TlsEngine.OpenSsl));
}

public class SocketsTlsServerTests(SocketsTlsServerTests.Server server) : TlsServerTests(server, TlsEngine.SslStream), IClassFixture<SocketsTlsServerTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.Sockets, null, "--Tls:Engine", nameof(TlsEngine.SslStream));
}

public class SocketsOpenSslTlsServerTests(SocketsOpenSslTlsServerTests.Server server) : TlsServerTests(server, TlsEngine.OpenSsl), IClassFixture<SocketsOpenSslTlsServerTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.Sockets, null, "--Tls:Engine", nameof(TlsEngine.OpenSsl));
}
