using System.Net.Security;
using System.Security.Authentication;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>
/// What every TLS listener allows (docs/decisions/0016-tls-layer.md): TLS 1.2 and 1.3 only; on 1.2 only ECDHE key
/// exchange with an AEAD cipher (forward secrecy, no CBC: RFC 9325 §4.2's recommended suites) unless OpenSSL's own
/// list is asked for (<see cref="TlsSuites"/>); no renegotiation (RFC 9325 §3.5); session resumption where the suites
/// allow it; ALPN offering HTTP/2 and HTTP/1.1, HTTP/2 preferred (RFC 9113 §3.2). Compression is never negotiated:
/// OpenSSL disables it.
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
        // The server's preference first: h2 for a client that offers it (RFC 9113 §3.2); a client offering neither (or no
        // ALPN at all) gets HTTP/1.1 (TlsServer handshakes it without ALPN).
        ApplicationProtocols = [SslApplicationProtocol.Http2, SslApplicationProtocol.Http11],
    };

    /// <summary>
    /// Whether a connection's TLS meets HTTP/2's requirements (RFC 9113 §9.2): TLS 1.3, or TLS 1.2 with a suite off the
    /// blocklist of Appendix A. That list is every TLS 1.2 suite without an ephemeral key exchange ((EC)DHE) or without
    /// an AEAD cipher (GCM, CCM, ChaCha20-Poly1305), so the rule is read from the suite's IANA name. Every suite of
    /// <see cref="CipherSuites"/> meets it; OpenSSL's own list (<see cref="TlsSuites.OpenSsl"/>) may not.
    /// </summary>
    public static bool MeetsHttp2Requirements(SslProtocols protocol, TlsCipherSuite suite)
    {
        if (protocol != SslProtocols.Tls12)
        {
            // Earlier versions are never enabled here, and §9.2 refuses them too.
            return protocol == SslProtocols.Tls13;
        }

        string name = suite.ToString();
        bool ephemeral = name.StartsWith("TLS_DHE_", StringComparison.Ordinal) || name.StartsWith("TLS_ECDHE_", StringComparison.Ordinal);
        bool aead = name.Contains("_GCM_", StringComparison.Ordinal) || name.Contains("_CCM", StringComparison.Ordinal)
            || name.Contains("_CHACHA20_POLY1305_", StringComparison.Ordinal);
        return ephemeral && aead;
    }
}
