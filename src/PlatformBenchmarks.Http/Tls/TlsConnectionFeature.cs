using System.Net.Security;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>ALPN's choice for the layers above TLS (RFC 7301 §3.2): empty when the client offered no protocol this server speaks.</summary>
internal sealed class TlsConnectionFeature(ReadOnlyMemory<byte> protocol, bool meetsHttp2Requirements = true) : ITlsApplicationProtocolFeature
{
    public TlsConnectionFeature(SslApplicationProtocol protocol, bool meetsHttp2Requirements = true)
        : this(protocol.Protocol, meetsHttp2Requirements)
    {
    }

    public ReadOnlyMemory<byte> ApplicationProtocol { get; } = protocol;

    /// <summary>Whether the version and suite negotiated are good enough for HTTP/2 (RFC 9113 §9.2, <see cref="TlsPolicy.MeetsHttp2Requirements"/>).</summary>
    public bool MeetsHttp2Requirements { get; } = meetsHttp2Requirements;
}
