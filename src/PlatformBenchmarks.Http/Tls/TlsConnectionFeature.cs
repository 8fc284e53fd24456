using System.Net.Security;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>ALPN's choice for the layers above TLS (RFC 7301 §3.2): empty when the client offered no protocol this server speaks.</summary>
internal sealed class TlsConnectionFeature(ReadOnlyMemory<byte> protocol) : ITlsApplicationProtocolFeature
{
    public TlsConnectionFeature(SslApplicationProtocol protocol)
        : this(protocol.Protocol)
    {
    }

    public ReadOnlyMemory<byte> ApplicationProtocol { get; } = protocol;
}
