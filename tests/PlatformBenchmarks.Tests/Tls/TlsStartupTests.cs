using System.Diagnostics;
using System.Net.Http;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// An https:// listener without a certificate it can read stops the start with one line naming the file, exit code 2;
/// with HttpArena's TLS_CERT and TLS_KEY it starts and the banner names the listener https://.
/// </summary>
public class TlsStartupTests
{
    [Fact]
    public async Task AnHttpsAddressWithoutACertificateStopsTheStartNamingWhatToSet()
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(["--urls", "https://127.0.0.1:0"], NoTlsEnvironment);

        AssertOneLine(server, "Configuration 'urls': 'https://127.0.0.1:0' needs a certificate: set TLS_CERT and TLS_KEY (PEM files), or Tls:CertificatePath and Tls:KeyPath.");
    }

    [Fact]
    public async Task AMissingCertificateFileFromTheEnvironmentStopsTheStartNamingTheFile()
    {
        using var certificate = TestCertificate.Create();
        string missing = Path.Combine(Path.GetDirectoryName(certificate.CertificatePath)!, "absent.crt");

        ProcessResult server = await ServerProcess.RunToExitAsync(
            ["--urls", "https://127.0.0.1:0"], new Dictionary<string, string?> { ["TLS_CERT"] = missing, ["TLS_KEY"] = certificate.KeyPath });

        AssertOneLine(server, $"cannot read the TLS certificate '{missing}': no such file");
    }

    [Fact]
    public async Task AKeyThatIsNoKeyStopsTheStartNamingBothFiles()
    {
        using var certificate = TestCertificate.Create();
        string notAKey = Path.Combine(Path.GetDirectoryName(certificate.CertificatePath)!, "garbage.key");
        await File.WriteAllTextAsync(notAKey, "-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n");

        ProcessResult server = await ServerProcess.RunToExitAsync(
            ["--urls", "https://127.0.0.1:0", "--Tls:CertificatePath", certificate.CertificatePath, "--Tls:KeyPath", notAKey], NoTlsEnvironment);

        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.StartsWith($"PlatformBenchmarks: the TLS certificate '{certificate.CertificatePath}' and key '{notAKey}' are not a PEM certificate and its private key", server.Error, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', server.Error.Trim());
    }

    [Theory]
    [InlineData(new[] { "--Tls:CertificatePath", "/certs/server.crt" }, "Configuration 'Tls:CertificatePath' and 'Tls:KeyPath' (or TLS_CERT and TLS_KEY) go together: set both or neither.")]
    [InlineData(new[] { "--Tls:HandshakeTimeout", "00:00:00" }, "Configuration 'Tls:HandshakeTimeout' must be above 0 and at most 00:10:00, not 00:00:00.")]
    [InlineData(new[] { "--Tls:MaxHandshakes", "0" }, "Configuration 'Tls:MaxHandshakes' must be at least 1, not 0.")]
    [InlineData(new[] { "--Tls:CipherSuites", "All" }, "Configuration 'Tls:CipherSuites' must be one of Aead, OpenSsl, not 'All'.")]
    [InlineData(new[] { "--Tls:Engine", "BoringSsl" }, "Configuration 'Tls:Engine' must be one of SslStream, OpenSsl, not 'BoringSsl'.")]
    [InlineData(new[] { "--Tls:MaxHandshake", "5" }, "Configuration 'Tls:MaxHandshake' is not a setting of this server; the nearest is 'Tls:MaxHandshakes' (--help lists them).")]
    public async Task TlsSettingsTheServerCannotRunWithStopTheStart(string[] settings, string message)
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(["--urls", "http://127.0.0.1:0", .. settings], NoTlsEnvironment);

        AssertOneLine(server, message);
    }

    [Fact]
    public async Task TheHostsListeningLinesNameATlsListenerHttpsAndAnH2cListenerH2c()
    {
        using var certificate = TestCertificate.Create();
        int plain = ServerProcess.FreePort();
        int tls = ServerProcess.FreePort();
        int h2c = ServerProcess.FreePort();
        using Process server = ServerProcess.Start(
            ["--urls", $"http://127.0.0.1:{plain};https://127.0.0.1:{tls};h2c://127.0.0.1:{h2c}"],
            new Dictionary<string, string?> { ["TLS_CERT"] = certificate.CertificatePath, ["TLS_KEY"] = certificate.KeyPath });
        try
        {
            List<string> lines = await ServerProcess.ReadUntilAsync(server, "Application started", TimeSpan.FromMinutes(1));

            Assert.Equal(
                [$"Now listening on: http://127.0.0.1:{plain}", $"Now listening on: https://127.0.0.1:{tls}", $"Now listening on: h2c://127.0.0.1:{h2c}"],
                lines.Where(line => line.Contains("Now listening on:", StringComparison.Ordinal)).Select(line => line.Trim()));
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }

    [Fact]
    public async Task WithHttpArenasVariablesTheServerStartsAndItsBannerNamesTheListenerHttps()
    {
        using var certificate = TestCertificate.Create();
        int port = ServerProcess.FreePort();
        using Process server = ServerProcess.Start(
            ["--urls", $"http://127.0.0.1:0;https://127.0.0.1:{port}"],
            new Dictionary<string, string?> { ["TLS_CERT"] = certificate.CertificatePath, ["TLS_KEY"] = certificate.KeyPath });
        try
        {
            string banner = await ServerProcess.WaitForBannerAsync(server, TimeSpan.FromMinutes(1));

            Assert.Contains($", https://127.0.0.1:{port}", banner, StringComparison.Ordinal);
            using var client = new HttpClient(new SocketsHttpHandler { SslOptions = certificate.ClientOptions("http/1.1") });
            Assert.Equal("Hello, World!", await client.GetStringAsync(new Uri($"https://localhost:{port}/plaintext")));
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }

    /// <summary>The test process's own environment may hold HttpArena's variables: the server must not see them.</summary>
    private static Dictionary<string, string?> NoTlsEnvironment => new() { ["TLS_CERT"] = null, ["TLS_KEY"] = null };

    private static void AssertOneLine(ProcessResult server, string message)
    {
        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.Equal($"PlatformBenchmarks: {message}", server.Error.Trim());
        Assert.Empty(server.Output);
    }
}
