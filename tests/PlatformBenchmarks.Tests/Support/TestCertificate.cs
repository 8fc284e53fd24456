using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// A self-signed certificate for 127.0.0.1 and localhost, made when a test asks for it (no key is kept in the repository),
/// written as the PEM files a server reads, with a client check that trusts it and nothing else.
/// </summary>
public sealed class TestCertificate : IDisposable
{
    private readonly string _directory;

    private TestCertificate(string directory, X509Certificate2 certificate)
    {
        _directory = directory;
        Certificate = certificate;
    }

    public X509Certificate2 Certificate { get; }

    public string CertificatePath => Path.Combine(_directory, "server.crt");

    public string KeyPath => Path.Combine(_directory, "server.key");

    /// <summary>The server settings that make its https:// listeners use this certificate.</summary>
    public IReadOnlyList<string> Settings => ["--Tls:CertificatePath", CertificatePath, "--Tls:KeyPath", KeyPath];

    public static TestCertificate Create()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=localhost", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName("localhost");
        names.AddIpAddress(System.Net.IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], critical: false));
        DateTimeOffset now = TimeProvider.System.GetUtcNow();
        X509Certificate2 certificate = request.CreateSelfSigned(now.AddDays(-1), now.AddDays(7));

        string directory = Directory.CreateTempSubdirectory("pb-tls-").FullName;
        File.WriteAllText(Path.Combine(directory, "server.crt"), certificate.ExportCertificatePem());
        File.WriteAllText(Path.Combine(directory, "server.key"), key.ExportPkcs8PrivateKeyPem());
        return new TestCertificate(directory, certificate);
    }

    /// <summary>Client options that trust this certificate only, offering <paramref name="protocols"/> in ALPN (none when empty).</summary>
    public SslClientAuthenticationOptions ClientOptions(params string[] protocols) => new()
    {
        TargetHost = "localhost",
        ApplicationProtocols = protocols.Length == 0 ? null : [.. protocols.Select(protocol => new SslApplicationProtocol(protocol))],
        RemoteCertificateValidationCallback = (_, presented, _, _) => presented is not null && presented.GetCertHashString() == Certificate.GetCertHashString(),
    };

    public void Dispose()
    {
        Certificate.Dispose();
        Directory.Delete(_directory, recursive: true);
    }
}
