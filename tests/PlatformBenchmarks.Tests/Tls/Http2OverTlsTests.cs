using System.Buffers.Binary;
using System.Net;
using System.Net.Http;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Text;
using PlatformBenchmarks.Http.Http2;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// HTTP/2 over TLS by ALPN (RFC 9113 §3.2) end to end on every kind of transport: the framework's HttpClient asking for
/// HTTP/2 only gets every route's answer as HTTP/1.1 over TLS gives it, and raw TLS clients see what ALPN chose.
/// </summary>
public abstract class Http2OverTlsTests(TlsServerFixture server)
{
    private static readonly byte[] s_clientPreface = Encoding.ASCII.GetBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

    // A GET of /plaintext: :method GET, :scheme https, :path and :authority as literals (RFC 7541 §6.1, §6.2.2).
    private static readonly byte[] s_getPlaintext = [0x82, 0x87, 0x04, 10, .. "/plaintext"u8, 0x01, 9, .. "localhost"u8];

    private static CancellationToken Deadline => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;

    [Theory]
    [InlineData("plaintext", true)]
    [InlineData("json", true)]
    [InlineData("db", false)]
    [InlineData("queries?queries=3", false)]
    [InlineData("updates?queries=2", false)]
    [InlineData("fortunes", false)]
    [InlineData("cached-queries?count=4", false)]
    [InlineData("", true)]
    [InlineData("cookie", true)]
    [InlineData("baseline11?a=3&b=4", true)]
    [InlineData("baseline2?a=13&b=42", true)]
    [InlineData("pipeline", true)]
    [InlineData("json/5?m=3", true)]
    [InlineData("static/reset.css", true)]
    [InlineData("async-db?min=10&max=50&limit=5", false)]
    [InlineData("no-such-route", true)]
    public async Task EachRouteAnswersOverH2AsOverHttp11(string target, bool sameBody)
    {
        using HttpClient http2 = CreateClient(HttpVersion.Version20);
        using HttpClient http1 = CreateClient(HttpVersion.Version11);

        using HttpResponseMessage expected = await http1.GetAsync(new Uri(target, UriKind.Relative), Deadline);
        using HttpResponseMessage actual = await http2.GetAsync(new Uri(target, UriKind.Relative), Deadline);

        Assert.Equal(HttpVersion.Version11, expected.Version);
        Assert.Equal(HttpVersion.Version20, actual.Version);
        Assert.Equal(expected.StatusCode, actual.StatusCode);
        Assert.Equal(expected.Content.Headers.ContentType?.ToString(), actual.Content.Headers.ContentType?.ToString());
        string body = await actual.Content.ReadAsStringAsync(Deadline);
        if (sameBody)
        {
            Assert.Equal(await expected.Content.ReadAsStringAsync(Deadline), body);
        }
        else
        {
            Assert.NotEmpty(body);
        }
    }

    [Fact]
    public async Task ManyRequestsShareOneH2Connection()
    {
        using HttpClient client = CreateClient(HttpVersion.Version20);

        string[] sums = await Task.WhenAll(Enumerable.Range(0, 64).Select(i => client.GetStringAsync(new Uri($"baseline2?a={i}&b=1", UriKind.Relative), Deadline)));

        Assert.Equal(Enumerable.Range(1, 64).Select(i => i.ToString(System.Globalization.CultureInfo.InvariantCulture)), sums);
    }

    [Theory]
    [InlineData("h2")]
    [InlineData("h2", "http/1.1")]
    [InlineData("http/1.1", "h2")]
    public async Task AClientOfferingH2GetsH2AndTheServersSettingsFirst(params string[] protocols)
    {
        // The server's preference wins (RFC 7301 §3.2): h2 whenever the client offers it, in whatever order.
        await using SslStream tls = await server.ConnectTlsAsync(protocols);
        Assert.Equal(SslApplicationProtocol.Http2, tls.NegotiatedApplicationProtocol);

        await tls.WriteAsync((byte[])[.. s_clientPreface, .. FrameBytes(Http2FrameType.Settings, 0, 0, []),
            .. FrameBytes(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1, s_getPlaintext)], Deadline);

        List<RawFrame> frames = await ReadUntilAsync(tls, frame => frame.Type == Http2FrameType.Data && (frame.Flags & Http2FrameFlags.EndStream) != 0);
        Assert.Equal(Http2FrameType.Settings, frames[0].Type);
        Assert.Equal(0, frames[0].Flags);
        RawFrame headers = Assert.Single(frames, frame => frame.Type == Http2FrameType.Headers);
        Assert.Equal(1, headers.StreamId);
        Assert.Equal(0x88, headers.Payload[0]); // :status 200, static index 8.
        Assert.Equal("Hello, World!", Encoding.ASCII.GetString([.. frames.Where(frame => frame.Type == Http2FrameType.Data).SelectMany(frame => frame.Payload)]));
    }

    [Fact]
    public async Task AnHttp11RequestAfterAlpnChoseH2IsRefusedWithGoAway()
    {
        await using SslStream tls = await server.ConnectTlsAsync("h2");

        await tls.WriteAsync(Requests.Bytes(Requests.Plaintext), Deadline);

        List<RawFrame> frames = await ReadUntilAsync(tls, frame => frame.Type == Http2FrameType.GoAway);
        Assert.Equal(Http2ErrorCode.ProtocolError, (Http2ErrorCode)BinaryPrimitives.ReadUInt32BigEndian(frames[^1].Payload.AsSpan(4)));
        Assert.DoesNotContain(frames, frame => frame.Type == Http2FrameType.Headers);
    }

    [Fact]
    public async Task AClientOfferingOnlyHttp11GetsHttp11()
    {
        await using SslStream tls = await server.ConnectTlsAsync("http/1.1");

        await tls.WriteAsync(Requests.Bytes(Requests.Plaintext), Deadline);

        Assert.Equal(SslApplicationProtocol.Http11, tls.NegotiatedApplicationProtocol);
        Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.Status);
    }

    private HttpClient CreateClient(Version version) =>
        new(new SocketsHttpHandler { SslOptions = server.Certificate.ClientOptions() })
        {
            BaseAddress = new Uri($"https://localhost:{server.Port}/"),
            DefaultRequestVersion = version,
            DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };

    internal static byte[] FrameBytes(Http2FrameType type, byte flags, int streamId, byte[] payload)
    {
        byte[] bytes = new byte[9 + payload.Length];
        BinaryPrimitives.WriteUInt32BigEndian(bytes, (uint)payload.Length << 8 | (byte)type);
        bytes[4] = flags;
        BinaryPrimitives.WriteInt32BigEndian(bytes.AsSpan(5), streamId);
        payload.CopyTo(bytes, 9);
        return bytes;
    }

    /// <summary>The frames the server sends, up to the one <paramref name="last"/> picks; fails if the stream ends first.</summary>
    internal static async Task<List<RawFrame>> ReadUntilAsync(Stream stream, Func<RawFrame, bool> last)
    {
        var frames = new List<RawFrame>();
        byte[] header = new byte[9];
        while (true)
        {
            await stream.ReadExactlyAsync(header, Deadline);
            byte[] payload = new byte[header[0] << 16 | header[1] << 8 | header[2]];
            await stream.ReadExactlyAsync(payload, Deadline);
            var frame = new RawFrame((Http2FrameType)header[3], header[4], BinaryPrimitives.ReadInt32BigEndian(header.AsSpan(5)) & 0x7FFF_FFFF, payload);
            frames.Add(frame);
            if (last(frame))
            {
                return frames;
            }
        }
    }

    internal sealed record RawFrame(Http2FrameType Type, byte Flags, int StreamId, byte[] Payload);
}

public class IoUringHttp2OverTlsTests(IoUringHttp2OverTlsTests.Server server) : Http2OverTlsTests(server), IClassFixture<IoUringHttp2OverTlsTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.IoUring);
}

public class EpollHttp2OverTlsTests(EpollHttp2OverTlsTests.Server server) : Http2OverTlsTests(server), IClassFixture<EpollHttp2OverTlsTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.Epoll);
}

public class SocketsHttp2OverTlsTests(SocketsHttp2OverTlsTests.Server server) : Http2OverTlsTests(server), IClassFixture<SocketsHttp2OverTlsTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.Sockets);
}

/// <summary>
/// HTTP/2's TLS requirements (RFC 9113 §9.2): the policy's suites all meet them, Appendix A's do not, and a server on
/// OpenSSL's own list that negotiates a blocked TLS 1.2 suite with a client asking for h2 answers INADEQUATE_SECURITY.
/// </summary>
public class Http2TlsRequirementsTests(Http2TlsRequirementsTests.Server server) : IClassFixture<Http2TlsRequirementsTests.Server>
{
    private static CancellationToken Deadline => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;

    [Fact]
    public void EverySuiteOfThePolicyMeetsHttp2sRequirements()
    {
        // TLS 1.3's suites have no key exchange in their names (RFC 8446 §B.4): they are 1.3's alone.
        Assert.All(TlsPolicy.CipherSuites, suite => Assert.True(
            TlsPolicy.MeetsHttp2Requirements(suite.ToString().Contains("_WITH_", StringComparison.Ordinal) ? SslProtocols.Tls12 : SslProtocols.Tls13, suite), suite.ToString()));
    }

    [Theory]
    [InlineData(TlsCipherSuite.TLS_RSA_WITH_AES_128_GCM_SHA256, false)]
    [InlineData(TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, false)]
    [InlineData(TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA, false)]
    [InlineData(TlsCipherSuite.TLS_ECDH_ECDSA_WITH_AES_128_GCM_SHA256, false)]
    [InlineData(TlsCipherSuite.TLS_DH_anon_WITH_AES_128_GCM_SHA256, false)]
    [InlineData(TlsCipherSuite.TLS_PSK_WITH_AES_128_CCM, false)]
    [InlineData(TlsCipherSuite.TLS_DHE_RSA_WITH_AES_128_GCM_SHA256, true)]
    [InlineData(TlsCipherSuite.TLS_DHE_RSA_WITH_AES_128_CCM, true)]
    [InlineData(TlsCipherSuite.TLS_ECDHE_PSK_WITH_AES_128_GCM_SHA256, true)]
    [InlineData(TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, true)]
    public void Tls12SuitesAreJudgedByAppendixA(TlsCipherSuite suite, bool allowed)
    {
        Assert.Equal(allowed, TlsPolicy.MeetsHttp2Requirements(SslProtocols.Tls12, suite));
        Assert.True(TlsPolicy.MeetsHttp2Requirements(SslProtocols.Tls13, TlsCipherSuite.TLS_AES_128_GCM_SHA256));
    }

    [Fact]
    public async Task H2OverABlockedTls12SuiteGetsInadequateSecurity()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // Cipher suite policies are chosen per process on Linux (and macOS) only.
        }

        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(IPAddress.Loopback, server.Port);
        await using var tls = new SslStream(new NetworkStream(socket, ownsSocket: false));
        SslClientAuthenticationOptions options = server.Certificate.ClientOptions("h2");
        options.EnabledSslProtocols = SslProtocols.Tls12;
        options.CipherSuitesPolicy = new CipherSuitesPolicy([TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256]);
        await tls.AuthenticateAsClientAsync(options, Deadline);
        Assert.Equal(SslApplicationProtocol.Http2, tls.NegotiatedApplicationProtocol);

        await tls.WriteAsync(s_preface, Deadline);

        List<Http2OverTlsTests.RawFrame> frames = await Http2OverTlsTests.ReadUntilAsync(tls, frame => frame.Type == Http2FrameType.GoAway);
        Assert.Equal(Http2FrameType.Settings, frames[0].Type);
        Assert.Equal(Http2ErrorCode.InadequateSecurity, (Http2ErrorCode)BinaryPrimitives.ReadUInt32BigEndian(frames[^1].Payload.AsSpan(4)));
        Assert.Equal(0, await tls.ReadAsync(new byte[1], Deadline));
    }

    private static readonly byte[] s_preface = [.. "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8, .. Http2OverTlsTests.FrameBytes(Http2FrameType.Settings, 0, 0, [])];

    /// <summary>TLS 1.2's suites from OpenSSL's own list, which has CBC suites HTTP/2 refuses.</summary>
    public sealed class Server() : TlsServerFixture(TransportKind.Sockets, null, "--Tls:CipherSuites", "OpenSsl");
}
