using System.Runtime.InteropServices;

namespace PlatformBenchmarks.Http.Tls.OpenSsl;

/// <summary>
/// What TLS 1.3's records on the loop need of OpenSSL beyond the handshake (docs/decisions/0022-tls13-records-on-the-loop.md):
/// the keylog callback that hands over the traffic secrets, the BIO counters that place OpenSSL's last records, and the
/// EVP AEAD calls that protect each record.
/// </summary>
internal static partial class LibSsl
{
    public const int EvpCtrlAeadGetTag = 0x10;
    public const int EvpCtrlAeadSetTag = 0x11;

    private const int BioCtrlInfo = 3;

    [LibraryImport(Ssl)]
    public static unsafe partial void SSL_CTX_set_keylog_callback(SafeSslContextHandle context, delegate* unmanaged<nint, byte*, void> callback);

    [LibraryImport(Ssl)]
    public static partial int SSL_set_ex_data(SafeSslHandle ssl, int index, nint data);

    // Reads a slot of the SSL's own array: no lock, no callback.
    [LibraryImport(Ssl)]
    [SuppressGCTransition]
    public static partial nint SSL_get_ex_data(nint ssl, int index);

    [LibraryImport(Ssl)]
    public static partial ushort SSL_CIPHER_get_protocol_id(nint cipher);

    /// <summary>Frees the SSL's record buffers when nothing is pending in them (1); 0 leaves them.</summary>
    [LibraryImport(Ssl)]
    public static partial int SSL_free_buffers(SafeSslHandle ssl);

    // The BIO's counters of bytes written and read: fields, read without a GC transition.
    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial ulong BIO_number_written(nint bio);

    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial ulong BIO_number_read(nint bio);

    /// <summary><c>BIO_get_mem_data</c>: a memory BIO's unread bytes, contiguous, valid until the BIO is next used.</summary>
    [LibraryImport(Crypto, EntryPoint = "BIO_ctrl")]
    public static partial nint BIO_get_mem_data(nint bio, int command, nint larg, out nint data);

    public static nint BIO_get_mem_data(nint bio, out nint data) => BIO_get_mem_data(bio, BioCtrlInfo, 0, out data);

    [LibraryImport(Crypto, StringMarshalling = StringMarshalling.Utf8)]
    public static partial nint EVP_CIPHER_fetch(nint libraryContext, string algorithm, string? properties);

    [LibraryImport(Crypto)]
    public static partial void EVP_CIPHER_free(nint cipher);

    [LibraryImport(Crypto)]
    public static partial nint EVP_CIPHER_CTX_new();

    [LibraryImport(Crypto)]
    public static partial void EVP_CIPHER_CTX_free(nint context);

    // The per-record calls below work on a context this connection alone uses, on a few bytes (a nonce, a 5-byte header,
    // a tag): no lock, no callback, no wait, so no GC transition. The bulk update of a record's bytes keeps its transition.
    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial int EVP_CipherInit_ex2(nint context, nint cipher, ReadOnlySpan<byte> key, ReadOnlySpan<byte> iv, int encrypt, nint parameters);

    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial int EVP_CipherUpdate(nint context, Span<byte> output, out int written, ReadOnlySpan<byte> input, int length);

    [LibraryImport(Crypto, EntryPoint = "EVP_CipherUpdate")]
    public static partial int EVP_CipherUpdateData(nint context, Span<byte> output, out int written, ReadOnlySpan<byte> input, int length);

    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial int EVP_CipherFinal_ex(nint context, Span<byte> output, out int written);

    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial int EVP_CIPHER_CTX_ctrl(nint context, int command, int argument, Span<byte> data);

    [LibraryImport(Crypto)]
    [SuppressGCTransition]
    public static partial int EVP_CIPHER_CTX_ctrl(nint context, int command, int argument, ReadOnlySpan<byte> data);

    /// <summary>
    /// Empties this thread's error queue when it holds an error. SSL_get_error reads the queue, which must be empty before
    /// the call it judges (OpenSSL's contract): on Kestrel's sockets the thread may have run other OpenSSL work. Looking
    /// costs less than emptying its 16 slots, and the queue is empty but after a failure.
    /// </summary>
    public static void ClearErrors()
    {
        if (ERR_peek_error() != 0)
        {
            ERR_clear_error();
        }
    }
}
