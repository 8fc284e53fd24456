using System.Net.Security;
using System.Security.Authentication;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>
/// What every TLS listener allows (docs/decisions/0016-tls-layer.md): TLS 1.2 and 1.3 only; on 1.2 only ECDHE key
/// exchange with an AEAD cipher (forward secrecy, no CBC: RFC 9325 §4.2's recommended suites) unless OpenSSL's own
/// list is asked for (<see cref="TlsSuites"/>); no renegotiation (RFC 9325 §3.5); session resumption where the suites
/// allow it; ALPN offering HTTP/1.1. Compression is never negotiated: OpenSSL disables it.
/// </summary>
internal static class TlsPolicy
{
    /// <summary>The TLS 1.3 suites (all AEAD, all forward secret) and the TLS 1.2 suites allowed, the server's preference first.</summary>
    internal static readonly TlsCipherSuite[] CipherSuites =
    [
        TlsCipherSuite.TLS_AES_128_GCM_SHA256,
        TlsCipherSuite.TLS_AES_256_GCM_SHA384,
        TlsCipherSuite.TLS_CHACHA20_POLY1305_SHA256,
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ];

    public static SslServerAuthenticationOptions ServerOptions(SslStreamCertificateContext certificate, TlsSuites suites) => new()
    {
        ServerCertificateContext = certificate,
        EnabledSslProtocols = SslProtocols.Tls12 | SslProtocols.Tls13,
        // Only Linux and macOS let a process choose its suites; elsewhere the system's policy applies.
        CipherSuitesPolicy = suites == TlsSuites.Aead && (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS()) ? new CipherSuitesPolicy(CipherSuites) : null,
        AllowRenegotiation = false,
        AllowTlsResume = true,
        ClientCertificateRequired = false,
        CertificateRevocationCheckMode = System.Security.Cryptography.X509Certificates.X509RevocationMode.NoCheck,
        // HTTP/1.1 only until HTTP/2 lands; a client offering neither (or no ALPN at all) still gets HTTP/1.1.
        ApplicationProtocols = [SslApplicationProtocol.Http11],
    };
}
