using System.Net.Security;
using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Http.Tls.OpenSsl;

/// <summary>The exception for a TLS engine that cannot be used on this machine; its message is one line.</summary>
public sealed class TlsEngineException : Exception
{
    public TlsEngineException()
    {
    }

    public TlsEngineException(string message)
        : base(message)
    {
    }

    public TlsEngineException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

/// <summary>
/// One <c>SSL_CTX</c>, configured as <see cref="TlsPolicy"/> configures <see cref="SslStream"/>: TLS 1.2 and 1.3 only,
/// on 1.2 the policy's ECDHE AEAD suites (or OpenSSL's configured list, <see cref="TlsSuites.OpenSsl"/>), the server's
/// order first, no renegotiation (RFC 9325 §3.5), no compression, stateless session tickets for resumption, and ALPN
/// chosen from the server's own list (docs/decisions/0021-tls-engine.md).
/// </summary>
internal sealed class OpenSslContext : IDisposable
{
    private readonly SafeSslContextHandle _context;
    private readonly ReadOnlyMemory<byte>[] _protocols;
    private GCHandle<OpenSslContext> _self;

    public OpenSslContext(TlsOptions options, IReadOnlyList<SslApplicationProtocol> protocols)
    {
        if (LibSsl.LoadFailure is { } failure)
        {
            throw new TlsEngineException($"Configuration 'Tls:Engine' is OpenSsl, but {failure}; or set it to SslStream.");
        }

        if (string.IsNullOrEmpty(options.CertificatePath) || string.IsNullOrEmpty(options.KeyPath))
        {
            throw new ArgumentException("The OpenSsl engine reads the certificate from TlsOptions.CertificatePath and KeyPath: set both.", nameof(options));
        }

        _protocols = [.. protocols.Select(protocol => protocol.Protocol)];
        _context = LibSsl.SSL_CTX_new(LibSsl.TLS_server_method());
        if (_context.IsInvalid)
        {
            throw new TlsEngineException(LibSsl.TakeError("SSL_CTX_new"));
        }

        Check(LibSsl.SSL_CTX_ctrl(_context, LibSsl.CtrlSetMinProtoVersion, LibSsl.Tls12Version, 0) == 1, "SSL_CTX_set_min_proto_version");
        Check(LibSsl.SSL_CTX_ctrl(_context, LibSsl.CtrlSetMaxProtoVersion, LibSsl.Tls13Version, 0) == 1, "SSL_CTX_set_max_proto_version");
        LibSsl.SSL_CTX_set_options(_context, LibSsl.OptionNoRenegotiation | LibSsl.OptionNoCompression | LibSsl.OptionCipherServerPreference);
        if (options.CipherSuites == TlsSuites.Aead)
        {
            (string tls12, string tls13) = SuiteLists();
            Check(LibSsl.SSL_CTX_set_cipher_list(_context, tls12) == 1, "SSL_CTX_set_cipher_list");
            Check(LibSsl.SSL_CTX_set_ciphersuites(_context, tls13) == 1, "SSL_CTX_set_ciphersuites");
        }

        // Tickets carry the session (stateless, keys in this context): no per-session cache grows with the handshakes.
        LibSsl.SSL_CTX_ctrl(_context, LibSsl.CtrlSetSessionCacheMode, 0, 0);
        LibSsl.SSL_CTX_set_session_id_context(_context, "PB"u8, 2);
        LoadCertificate(options.CertificatePath!, options.KeyPath!);

        _self = new GCHandle<OpenSslContext>(this);
        RecordLayer = options.RecordLayer;
        unsafe
        {
            LibSsl.SSL_CTX_set_alpn_select_cb(_context, &SelectProtocol, GCHandle<OpenSslContext>.ToIntPtr(_self));
            if (RecordsOnLoop)
            {
                // The traffic secrets reach the connection that takes over TLS 1.3's records; nothing is logged.
                LibSsl.SSL_CTX_set_keylog_callback(_context, &OpenSslConnection.OnSecret);
            }
        }
    }

    public SafeSslContextHandle Handle => _context;

    /// <summary>Who protects TLS 1.3's records after the handshake.</summary>
    public TlsRecordLayer RecordLayer { get; }

    /// <summary>Whether the loop protects TLS 1.3's records after the handshake, with either AEAD.</summary>
    public bool RecordsOnLoop => RecordLayer is TlsRecordLayer.Loop or TlsRecordLayer.LoopEvp;

    /// <summary>The server's protocols, most preferred first, as ALPN names them.</summary>
    public ReadOnlyMemory<byte>[] Protocols => _protocols;

    public void Dispose()
    {
        _context.Dispose();
        // After the context: OpenSSL calls the callback with this handle only while a handshake of the context runs.
        _self.Dispose();
    }

    /// <summary>
    /// The policy's suites in OpenSSL's two lists: TLS 1.3's by their standard names, TLS 1.2's by OpenSSL's
    /// (<c>OPENSSL_cipher_name</c> maps them), so both engines allow the same suites from one list.
    /// </summary>
    internal static (string Tls12, string Tls13) SuiteLists()
    {
        var tls12 = new List<string>();
        var tls13 = new List<string>();
        foreach (TlsCipherSuite suite in TlsPolicy.CipherSuites)
        {
            string name = suite.ToString();
            if (!name.Contains("_WITH_", StringComparison.Ordinal))
            {
                tls13.Add(name);
                continue;
            }

            string? openSslName = Marshal.PtrToStringUTF8(LibSsl.OPENSSL_cipher_name(name));
            if (openSslName is null or "(NONE)")
            {
                throw new TlsEngineException($"OpenSSL does not know the TLS 1.2 suite {name}.");
            }

            tls12.Add(openSslName);
        }

        return (string.Join(':', tls12), string.Join(':', tls13));
    }

    private void LoadCertificate(string certificatePath, string keyPath)
    {
        // The same files SslStream's context was read from (TlsCertificateFiles): a file it accepted, OpenSSL reads too.
        if (LibSsl.SSL_CTX_use_certificate_chain_file(_context, certificatePath) != 1)
        {
            throw new TlsCertificateException($"the TLS certificate '{certificatePath}': {LibSsl.TakeError("reading it")}");
        }

        if (LibSsl.SSL_CTX_use_PrivateKey_file(_context, keyPath, LibSsl.FileTypePem) != 1 || LibSsl.SSL_CTX_check_private_key(_context) != 1)
        {
            throw new TlsCertificateException($"the TLS key '{keyPath}' for '{certificatePath}': {LibSsl.TakeError("reading it")}");
        }
    }

    private static void Check(bool succeeded, string operation)
    {
        if (!succeeded)
        {
            throw new TlsEngineException(LibSsl.TakeError(operation));
        }
    }

    /// <summary>
    /// The first of the server's protocols the client's ALPN list (RFC 7301 §3.1, without its length) names: its offset
    /// and length in <paramref name="offered"/>, or -1 when the list names none of them or is malformed.
    /// </summary>
    internal static int Select(ReadOnlySpan<byte> offered, ReadOnlyMemory<byte>[] protocols, out int length)
    {
        foreach (ReadOnlyMemory<byte> protocol in protocols)
        {
            for (int offset = 0; offset < offered.Length;)
            {
                int size = offered[offset];
                if (size == 0 || size > offered.Length - offset - 1)
                {
                    length = 0;
                    return -1;
                }

                if (offered.Slice(offset + 1, size).SequenceEqual(protocol.Span))
                {
                    length = size;
                    return offset + 1;
                }

                offset += 1 + size;
            }
        }

        length = 0;
        return -1;
    }

    /// <summary>
    /// OpenSSL's ALPN select callback. A client whose list names none of the server's protocols is answered without ALPN
    /// (<c>SSL_TLSEXT_ERR_NOACK</c>) and gets HTTP/1.1, as on the SslStream path, rather than a fatal alert.
    /// </summary>
    /// <remarks>
    /// Unsafe by OpenSSL's signature. Invariants: <paramref name="offered"/> holds <paramref name="offeredLength"/> bytes
    /// for the call's duration, and the choice points into it (OpenSSL copies it before the buffer is freed);
    /// <paramref name="argument"/> is this context's handle, alive until the context is freed.
    /// </remarks>
    [UnmanagedCallersOnly]
    private static unsafe int SelectProtocol(nint ssl, byte** selected, byte* selectedLength, byte* offered, uint offeredLength, nint argument)
    {
        OpenSslContext context = GCHandle<OpenSslContext>.FromIntPtr(argument).Target;
        int offset = Select(new ReadOnlySpan<byte>(offered, checked((int)offeredLength)), context._protocols, out int length);
        if (offset < 0)
        {
            return LibSsl.TlsExtensionNoAck;
        }

        *selected = offered + offset;
        *selectedLength = (byte)length;
        return LibSsl.TlsExtensionOk;
    }
}
