using System.Text;
using PlatformBenchmarks.Http.Tls.OpenSsl;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>The OpenSSL engine's ALPN choice and suites, from the same lists as SslStream's options.</summary>
public class OpenSslContextTests
{
    private static readonly ReadOnlyMemory<byte>[] s_h2First = [Encoding.ASCII.GetBytes("h2"), Encoding.ASCII.GetBytes("http/1.1")];
    private static readonly ReadOnlyMemory<byte>[] s_http11Only = [Encoding.ASCII.GetBytes("http/1.1")];

    /// <summary>An ALPN protocol list as the ClientHello carries it (RFC 7301 §3.1), without its two-byte length.</summary>
    private static byte[] Offered(params string[] names) => [.. names.SelectMany(name => (byte[])[(byte)name.Length, .. Encoding.ASCII.GetBytes(name)])];

    [Theory]
    [InlineData("http/1.1", "h2", "http/1.1")]
    [InlineData("http/1.1", "http/1.1", "h2")]
    [InlineData("http/1.1", "http/1.1")]
    [InlineData(null, "h2")]
    [InlineData(null, "spdy/3", "h2c")]
    public void TheServersFirstProtocolTheClientOffersIsChosen(string? expected, params string[] offered)
    {
        byte[] list = Offered(offered);

        int offset = OpenSslContext.Select(list, s_http11Only, out int length);

        Assert.Equal(expected, offset < 0 ? null : Encoding.ASCII.GetString(list, offset, length));
    }

    [Fact]
    public void TheServersOrderWinsOverTheClients()
    {
        byte[] list = Offered("http/1.1", "h2");

        int offset = OpenSslContext.Select(list, s_h2First, out int length);

        Assert.Equal("h2", Encoding.ASCII.GetString(list, offset, length));
    }

    [Theory]
    [InlineData(new byte[] { 9, (byte)'h', (byte)'2' })]
    [InlineData(new byte[] { 0 })]
    [InlineData(new byte[] { 2, (byte)'h', (byte)'3', 8 })]
    public void AMalformedListChoosesNothing(byte[] list) => Assert.Equal(-1, OpenSslContext.Select(list, s_h2First, out _));

    [Fact]
    public void TheSuitesAreThePolicysInOpenSslsNames()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // libssl.so.3 is Linux's.
        }

        (string tls12, string tls13) = OpenSslContext.SuiteLists();

        Assert.Equal("TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256", tls13);
        Assert.Equal(
            "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305",
            tls12);
    }
}
