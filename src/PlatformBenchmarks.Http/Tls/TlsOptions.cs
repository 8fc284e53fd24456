using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>
/// The TLS listeners' certificate and handshake limits, bound from the <c>Tls</c> configuration section (the certificate's
/// files also from <c>TLS_CERT</c> and <c>TLS_KEY</c>, HttpArena's names) and checked at start-up by <see cref="TlsOptionsValidator"/>.
/// </summary>
public sealed class TlsOptions
{
    /// <summary>The server's certificate as a PEM file, leaf first, any intermediates after it.</summary>
    public string? CertificatePath { get; set; }

    /// <summary>The certificate's private key as a PEM file.</summary>
    public string? KeyPath { get; set; }

    /// <summary>
    /// How long a client has to complete its handshake, from the connection's accept: a slow or abandoned handshake holds
    /// memory and a slot of <see cref="MaxHandshakes"/> no longer.
    /// </summary>
    // Ten seconds, as Kestrel's HandshakeTimeout: many round trips on a slow link, a short hold for an abandoned one.
    public TimeSpan HandshakeTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// The most handshakes in progress at once, over every TLS listener; a connection accepted beyond it is closed at once.
    /// </summary>
    // Above HttpArena's json-tls load (4,096 connections opening together), so a benchmark's first burst is never refused;
    // low enough that a flood of abandoned handshakes holds a bounded amount of memory for at most HandshakeTimeout.
    public int MaxHandshakes { get; set; } = 8192;

    /// <summary>Which TLS 1.2 cipher suites are offered, and so whether sessions resume (<see cref="TlsSuites"/>).</summary>
    public TlsSuites CipherSuites { get; set; } = TlsSuites.Aead;

    /// <summary>What encrypts and decrypts the records (<see cref="TlsEngine"/>).</summary>
    // OpenSSL on the loop: less server CPU per response than SslStream (docs/decisions/0021-tls-engine.md).
    public TlsEngine Engine { get; set; } = TlsEngine.OpenSsl;

    /// <summary>What protects TLS 1.3's records after the OpenSSL engine's handshake (<see cref="TlsRecordLayer"/>).</summary>
    // On the loop: less server CPU per response than OpenSSL's record layer (docs/decisions/0022-tls13-records-on-the-loop.md),
    // and less with its own AES-GCM than with OpenSSL's EVP calls (docs/decisions/0023-aes-gcm-on-the-loop.md).
    public TlsRecordLayer RecordLayer { get; set; } = TlsRecordLayer.Loop;
}

/// <summary>
/// Who protects TLS 1.3's records once the OpenSSL engine's handshake is done (docs/decisions/0022-tls13-records-on-the-loop.md).
/// TLS 1.2's records, and every record on the SslStream engine, stay with the TLS library.
/// </summary>
public enum TlsRecordLayer
{
    /// <summary>
    /// The loop: OpenSSL hands over the traffic secrets, and each record is sealed and opened by the loop, as the kernel's
    /// TLS does where it has one; AES-GCM with x86's AES and carry-less multiply instructions where the machine has them
    /// (docs/decisions/0023-aes-gcm-on-the-loop.md), ChaCha20-Poly1305 and any other machine through OpenSSL's EVP calls.
    /// </summary>
    Loop,

    /// <summary>The loop, as <see cref="Loop"/>, with every suite's AEAD through OpenSSL's EVP calls.</summary>
    LoopEvp,

    /// <summary>OpenSSL's own record layer, through its memory BIOs.</summary>
    OpenSsl,
}

/// <summary>The TLS engine under the listeners (docs/decisions/0021-tls-engine.md).</summary>
public enum TlsEngine
{
    /// <summary>.NET's <see cref="System.Net.Security.SslStream"/> over the transport's pipes, as Kestrel's HTTPS.</summary>
    SslStream,

    /// <summary>OpenSSL 3 directly, with memory BIOs, on the thread that resumes the transport's pipes.</summary>
    OpenSsl,
}

/// <summary>
/// Where the TLS 1.2 suites come from. .NET on Linux keeps one OpenSSL context per certificate, and with it the keys of
/// its session tickets, only when no suites are chosen in code; with suites chosen each handshake gets a context of
/// its own, and no session resumes (docs/decisions/0016-tls-layer.md).
/// </summary>
public enum TlsSuites
{
    /// <summary>ECDHE with AES-GCM or ChaCha20-Poly1305 only, chosen here; sessions do not resume.</summary>
    Aead,

    /// <summary>OpenSSL's configured list (its openssl.cnf, or the file OPENSSL_CONF names); sessions resume.</summary>
    OpenSsl,
}

/// <summary>Refuses handshake limits the TLS layer cannot work with, naming the key.</summary>
public sealed class TlsOptionsValidator : IValidateOptions<TlsOptions>
{
    public ValidateOptionsResult Validate(string? name, TlsOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        if (options.HandshakeTimeout <= TimeSpan.Zero || options.HandshakeTimeout > TimeSpan.FromMinutes(10))
        {
            failures.Add($"Configuration 'Tls:HandshakeTimeout' must be above 0 and at most 00:10:00, not {options.HandshakeTimeout:c}.");
        }

        if (options.MaxHandshakes < 1)
        {
            failures.Add($"Configuration 'Tls:MaxHandshakes' must be at least 1, not {options.MaxHandshakes}.");
        }

        if (string.IsNullOrEmpty(options.CertificatePath) != string.IsNullOrEmpty(options.KeyPath))
        {
            failures.Add("Configuration 'Tls:CertificatePath' and 'Tls:KeyPath' (or TLS_CERT and TLS_KEY) go together: set both or neither.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
