using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace PlatformBenchmarks.Http.Tls.OpenSsl;

/// <summary>
/// The few calls of OpenSSL 3's <c>libssl.so.3</c> and <c>libcrypto.so.3</c> the loop's TLS engine makes
/// (docs/decisions/0021-tls-engine.md). Buffers go as spans (pinned for the call), the context and the connection as
/// safe handles; the memory BIOs as plain pointers, owned by their <c>SSL</c> (see <see cref="OpenSslConnection"/>).
/// </summary>
internal static partial class LibSsl
{
    public const string Ssl = "libssl.so.3";
    public const string Crypto = "libcrypto.so.3";

    public const int ErrorWantRead = 2;
    public const int ErrorZeroReturn = 6;

    public const int FileTypePem = 1;
    public const int Tls12Version = 0x0303;
    public const int Tls13Version = 0x0304;

    public const int CtrlSetSessionCacheMode = 44;
    public const int CtrlSetMinProtoVersion = 123;
    public const int CtrlSetMaxProtoVersion = 124;

    public const ulong OptionNoCompression = 1UL << 17;
    public const ulong OptionCipherServerPreference = 1UL << 22;
    public const ulong OptionNoRenegotiation = 1UL << 30;

    public const int TlsExtensionOk = 0;
    public const int TlsExtensionNoAck = 3;

    private static readonly string? s_loadFailure = Probe();

    /// <summary>Why the libraries cannot be used, for the refusal of <c>Tls:Engine=OpenSsl</c>; null when they can.</summary>
    public static string? LoadFailure => s_loadFailure;

    private static string? Probe()
    {
        foreach (string name in (ReadOnlySpan<string>)[Crypto, Ssl])
        {
            if (!NativeLibrary.TryLoad(name, typeof(LibSsl).Assembly, null, out nint library))
            {
                return $"{name} could not be loaded (install OpenSSL 3, Debian's libssl3)";
            }

            // OPENSSL_cipher_name appeared in 1.1.1, SSL_CTX_set_options became a function in 3.0: a 1.1 library has neither.
            if (name == Ssl && !NativeLibrary.TryGetExport(library, "SSL_CTX_set_options", out _))
            {
                return $"{name} is not OpenSSL 3 (no SSL_CTX_set_options)";
            }
        }

        // The libraries stay loaded for the process's life: the bindings below resolve their entry points in them.
        return null;
    }

    [LibraryImport(Ssl)]
    public static partial nint TLS_server_method();

    [LibraryImport(Ssl)]
    public static partial SafeSslContextHandle SSL_CTX_new(nint method);

    [LibraryImport(Ssl)]
    public static partial void SSL_CTX_free(nint context);

    [LibraryImport(Ssl)]
    public static partial nint SSL_CTX_ctrl(SafeSslContextHandle context, int command, nint larg, nint parg);

    [LibraryImport(Ssl)]
    public static partial ulong SSL_CTX_set_options(SafeSslContextHandle context, ulong options);

    [LibraryImport(Ssl, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int SSL_CTX_set_cipher_list(SafeSslContextHandle context, string list);

    [LibraryImport(Ssl, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int SSL_CTX_set_ciphersuites(SafeSslContextHandle context, string list);

    [LibraryImport(Ssl, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int SSL_CTX_use_certificate_chain_file(SafeSslContextHandle context, string path);

    [LibraryImport(Ssl, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int SSL_CTX_use_PrivateKey_file(SafeSslContextHandle context, string path, int type);

    [LibraryImport(Ssl)]
    public static partial int SSL_CTX_check_private_key(SafeSslContextHandle context);

    [LibraryImport(Ssl)]
    public static partial int SSL_CTX_set_session_id_context(SafeSslContextHandle context, ReadOnlySpan<byte> id, uint length);

    [LibraryImport(Ssl)]
    public static unsafe partial void SSL_CTX_set_alpn_select_cb(
        SafeSslContextHandle context, delegate* unmanaged<nint, byte**, byte*, byte*, uint, nint, int> callback, nint argument);

    [LibraryImport(Ssl, StringMarshalling = StringMarshalling.Utf8)]
    public static partial nint OPENSSL_cipher_name(string standardName);

    [LibraryImport(Ssl)]
    public static partial int SSL_version(SafeSslHandle ssl);

    [LibraryImport(Ssl)]
    public static partial nint SSL_get_current_cipher(SafeSslHandle ssl);

    [LibraryImport(Ssl)]
    public static partial nint SSL_CIPHER_standard_name(nint cipher);

    [LibraryImport(Ssl)]
    public static partial SafeSslHandle SSL_new(SafeSslContextHandle context);

    [LibraryImport(Ssl)]
    public static partial void SSL_free(nint ssl);

    [LibraryImport(Ssl)]
    public static partial void SSL_set_bio(SafeSslHandle ssl, nint received, nint sending);

    [LibraryImport(Ssl)]
    public static partial void SSL_set_accept_state(SafeSslHandle ssl);

    [LibraryImport(Ssl)]
    public static partial int SSL_do_handshake(SafeSslHandle ssl);

    // The calls made per record take the SSL as a pointer: OpenSslConnection holds one reference on its safe handle for
    // the connection's life, so none is taken per call (docs/decisions/0021-tls-engine.md, "Where TLS's CPU goes").
    [LibraryImport(Ssl)]
    public static partial int SSL_read(nint ssl, Span<byte> buffer, int length);

    [LibraryImport(Ssl)]
    public static partial int SSL_write(nint ssl, ReadOnlySpan<byte> buffer, int length);

    // Reads a counter: no lock, no callback, no wait, so the call needs no GC transition.
    [LibraryImport(Ssl)]
    [SuppressGCTransition]
    public static partial int SSL_pending(nint ssl);

    [LibraryImport(Ssl)]
    public static partial int SSL_shutdown(SafeSslHandle ssl);

    [LibraryImport(Ssl)]
    public static partial int SSL_get_error(nint ssl, int result);

    [LibraryImport(Ssl)]
    public static unsafe partial void SSL_get0_alpn_selected(SafeSslHandle ssl, byte** protocol, uint* length);

    [LibraryImport(Crypto)]
    public static partial nint BIO_s_mem();

    [LibraryImport(Crypto)]
    public static partial nint BIO_new(nint method);

    [LibraryImport(Crypto)]
    public static partial int BIO_free(nint bio);

    [LibraryImport(Crypto)]
    public static partial int BIO_write(nint bio, ReadOnlySpan<byte> data, int length);

    [LibraryImport(Crypto)]
    public static partial int BIO_read(nint bio, Span<byte> buffer, int length);

    // A memory BIO's length: reads a field, so no GC transition.
    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial nuint BIO_ctrl_pending(nint bio);

    [LibraryImport(Crypto)]
    public static partial ulong ERR_get_error();

    [LibraryImport(Crypto)]
    public static partial ulong ERR_peek_error();

    [LibraryImport(Crypto)]
    public static partial void ERR_clear_error();

    [LibraryImport(Crypto)]
    public static partial void ERR_error_string_n(ulong error, Span<byte> buffer, nuint length);

    /// <summary>
    /// The oldest error of this thread's OpenSSL queue as text, and the queue emptied: the queue is per thread, so an
    /// error left in it would be read as the next connection's on this loop.
    /// </summary>
    public static string TakeError(string operation)
    {
        ulong error = ERR_get_error();
        ERR_clear_error();
        if (error == 0)
        {
            return $"{operation} failed";
        }

        Span<byte> text = stackalloc byte[256];
        ERR_error_string_n(error, text, (nuint)text.Length);
        int end = text.IndexOf((byte)0);
        return $"{operation} failed: {System.Text.Encoding.ASCII.GetString(end < 0 ? text : text[..end])}";
    }
}

/// <summary>Owns an <c>SSL_CTX</c> and frees it once; the connections made from it hold their own references in OpenSSL.</summary>
internal sealed class SafeSslContextHandle : SafeHandleZeroOrMinusOneIsInvalid
{
    public SafeSslContextHandle()
        : base(ownsHandle: true)
    {
    }

    protected override bool ReleaseHandle()
    {
        LibSsl.SSL_CTX_free(handle);
        return true;
    }
}

/// <summary>Owns an <c>SSL</c> and, through it, its two memory BIOs: freeing it frees them.</summary>
internal sealed class SafeSslHandle : SafeHandleZeroOrMinusOneIsInvalid
{
    public SafeSslHandle()
        : base(ownsHandle: true)
    {
    }

    protected override bool ReleaseHandle()
    {
        LibSsl.SSL_free(handle);
        return true;
    }
}
