using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// A TLS 1.3 client on OpenSSL 3 (<c>libssl.so.3</c>), blocking, over a connected socket: what <see cref="System.Net.Security.SslStream"/>
/// cannot do, it can: send a KeyUpdate (RFC 8446 §4.6.3), resume a session from its ticket, and put raw bytes between
/// its records, or a record it would never send, sealed under its key. It does not check the server's certificate: the
/// tests that use it are about the records, not the peer.
/// </summary>
internal sealed partial class OpenSslClient : IDisposable
{
    private const string Ssl = "libssl.so.3";
    private const string Crypto = "libcrypto.so.3";
    private const int CtrlSetMaxProtoVersion = 124;
    private const int Tls13Version = 0x0304;
    private const int ErrorWantRead = 2;
    private const int ErrorWantWrite = 3;

    // The last retried call's failure, for the next Check on this thread.
    [ThreadStatic]
    private static string? t_lastFailure;

    // The client's first application traffic secret of each connection, from OpenSSL's keylog callback, by SSL.
    private static readonly ConcurrentDictionary<nint, byte[]> s_clientSecrets = new();

    private readonly Socket _socket;
    private readonly nint _context;
    private readonly nint _ssl;
    private ulong _recordsSent;

    private OpenSslClient(Socket socket, nint context, nint ssl)
    {
        _socket = socket;
        _context = context;
        _ssl = ssl;
    }

    /// <summary>Whether the handshake resumed the session it was given.</summary>
    public bool Resumed => SSL_session_reused(_ssl) == 1;

    /// <summary>Connects to <paramref name="port"/> on loopback and completes the handshake, resuming <paramref name="session"/> when given.</summary>
    public static OpenSslClient Connect(int port, string suite = "TLS_AES_128_GCM_SHA256", nint session = 0)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
        {
            NoDelay = true,
            ReceiveTimeout = 10_000,
            SendTimeout = 10_000,
        };
        socket.Connect(IPAddress.Loopback, port);
        nint context = SSL_CTX_new(TLS_client_method());
        SSL_CTX_ctrl(context, CtrlSetMaxProtoVersion, Tls13Version, 0);
        unsafe
        {
            SSL_CTX_set_keylog_callback(context, &OnKeyLog);
        }

        Check(SSL_CTX_set_ciphersuites(context, suite) == 1, "SSL_CTX_set_ciphersuites");
        nint ssl = SSL_new(context);
        var client = new OpenSslClient(socket, context, ssl);
        Check(SSL_set_fd(ssl, (int)socket.Handle) == 1, "SSL_set_fd");
        if (session != 0)
        {
            Check(SSL_set_session(ssl, session) == 1, "SSL_set_session");
        }

        Check(Retried(ssl, () => SSL_connect(ssl)) == 1, "SSL_connect");
        return client;
    }

    /// <summary>The session to resume, with its ticket: the caller frees it with <see cref="FreeSession"/>.</summary>
    public nint TakeSession() => SSL_get1_session(_ssl);

    public static void FreeSession(nint session) => SSL_SESSION_free(session);

    public void Write(string text)
    {
        byte[] bytes = Encoding.ASCII.GetBytes(text);
        // One record per write, so that the count of records sent gives the next sequence number.
        ArgumentOutOfRangeException.ThrowIfGreaterThan(bytes.Length, 1 << 14);
        Check(Retried(_ssl, () => SSL_write(_ssl, bytes, bytes.Length)) == bytes.Length, "SSL_write");
        _recordsSent++;
    }

    /// <summary>
    /// <paramref name="content"/> as the client's next record of <paramref name="type"/> under its first application
    /// traffic secret (RFC 8446 §5.2, §7.3), sealed here with .NET's AES-GCM (TLS_AES_128_GCM_SHA256 only, and before any
    /// KeyUpdate); after it, OpenSSL's own records are out of sequence, so the connection is only read.
    /// </summary>
    public byte[] SealNext(byte type, ReadOnlySpan<byte> content)
    {
        byte[] secret = s_clientSecrets[_ssl];
        Span<byte> key = stackalloc byte[16];
        Span<byte> nonce = stackalloc byte[12];
        ExpandLabel(secret, "key", key);
        ExpandLabel(secret, "iv", nonce);
        ulong sequence = _recordsSent++;
        BinaryPrimitives.WriteUInt64BigEndian(nonce[4..], BinaryPrimitives.ReadUInt64BigEndian(nonce[4..]) ^ sequence);

        int inner = content.Length + 1;
        byte[] record = new byte[5 + inner + 16];
        record[0] = 23;
        record[1] = 3;
        record[2] = 3;
        BinaryPrimitives.WriteUInt16BigEndian(record.AsSpan(3), (ushort)(inner + 16));
        byte[] plaintext = [.. content, type];
        using var aead = new AesGcm(key, 16);
        aead.Encrypt(nonce, plaintext, record.AsSpan(5, inner), record.AsSpan(5 + inner), record.AsSpan(0, 5));
        return record;
    }

    /// <summary>Reads one response with a Content-Length, whole, as text.</summary>
    public string ReadResponse()
    {
        var received = new StringBuilder();
        byte[] buffer = new byte[16384];
        while (true)
        {
            string text = received.ToString();
            int end = text.IndexOf("\r\n\r\n", StringComparison.Ordinal);
            if (end >= 0)
            {
                int start = text.IndexOf("Content-Length: ", StringComparison.OrdinalIgnoreCase) + "Content-Length: ".Length;
                int length = int.Parse(text[start..text.IndexOf('\r', start)], System.Globalization.CultureInfo.InvariantCulture);
                if (text.Length >= end + 4 + length)
                {
                    return text;
                }
            }

            int read = Retried(_ssl, () => SSL_read(_ssl, buffer, buffer.Length));
            Check(read > 0, "SSL_read");
            received.Append(Encoding.ASCII.GetString(buffer, 0, read));
        }
    }

    /// <summary>Sends a KeyUpdate with the next write, asking the server for its own when <paramref name="requestPeer"/>.</summary>
    public void KeyUpdate(bool requestPeer) => Check(SSL_key_update(_ssl, requestPeer ? 1 : 0) == 1, "SSL_key_update");

    /// <summary>Sends bytes on the socket itself, outside the TLS records.</summary>
    public void SendRaw(ReadOnlySpan<byte> bytes) => _socket.Send(bytes);

    /// <summary>Reads until the connection fails or ends: OpenSSL's reason (the server's alert), or "closed" at a clean end.</summary>
    public string ReadUntilFailure()
    {
        byte[] buffer = new byte[16384];
        int read;
        while ((read = Retried(_ssl, () => SSL_read(_ssl, buffer, buffer.Length))) > 0)
        {
        }

        // The end is expected here: its detail is not a failure to report.
        t_lastFailure = null;
        int error = SSL_get_error(_ssl, read);
        return error == 6 ? "closed" : TakeError();
    }

    public void Dispose()
    {
        // A session whose connection ends without a close_notify is marked not resumable, so the close_notify goes first.
        _ = SSL_shutdown(_ssl);
        // Forgotten before the SSL is freed: another connection's SSL may take its address at once.
        s_clientSecrets.TryRemove(_ssl, out _);
        SSL_free(_ssl);
        SSL_CTX_free(_context);
        _socket.Dispose();
    }

    /// <summary>HKDF-Expand-Label with an empty context (RFC 8446 §7.1).</summary>
    private static void ExpandLabel(byte[] secret, string label, Span<byte> output)
    {
        byte[] full = Encoding.ASCII.GetBytes("tls13 " + label);
        byte[] info = [(byte)(output.Length >> 8), (byte)output.Length, (byte)full.Length, .. full, 0];
        HKDF.Expand(HashAlgorithmName.SHA256, secret, output, info);
    }

    /// <summary>OpenSSL's keylog callback: keeps the client's first application traffic secret (NSS's key log format).</summary>
    [UnmanagedCallersOnly]
    private static unsafe void OnKeyLog(nint ssl, byte* line)
    {
        string text = Marshal.PtrToStringUTF8((nint)line) ?? "";
        if (text.StartsWith("CLIENT_TRAFFIC_SECRET_0 ", StringComparison.Ordinal))
        {
            s_clientSecrets[ssl] = Convert.FromHexString(text[(text.LastIndexOf(' ') + 1)..]);
        }
    }

    /// <summary>
    /// Makes <paramref name="call"/> again while OpenSSL says it wants to read or write, for up to the socket's timeout.
    /// On a blocking socket that happens when a signal to this process (a child process ending, as other tests' do)
    /// interrupts a read: with a receive timeout set, the kernel does not restart it (signal(7)), and OpenSSL reports the
    /// interruption as a read to retry.
    /// </summary>
    /// <remarks>A call that fails for good leaves its OpenSSL error kind and errno for <see cref="Check"/>'s message.</remarks>
    private static int Retried(nint ssl, Func<int> call)
    {
        long start = TimeProvider.System.GetTimestamp();
        while (true)
        {
            int result = call();
            int errno = Marshal.GetLastPInvokeError();
            if (result > 0)
            {
                return result;
            }

            int error = SSL_get_error(ssl, result);
            if (error is not (ErrorWantRead or ErrorWantWrite) || TimeProvider.System.GetElapsedTime(start) > TimeSpan.FromSeconds(10))
            {
                t_lastFailure = $" (SSL_get_error {error}, errno {errno})";
                return result;
            }
        }
    }

    private static void Check(bool succeeded, string operation)
    {
        if (!succeeded)
        {
            string detail = t_lastFailure ?? "";
            t_lastFailure = null;
            throw new IOException($"{operation}: {TakeError()}{detail}");
        }
    }

    private static string TakeError()
    {
        ulong error = ERR_get_error();
        ERR_clear_error();
        byte[] text = new byte[256];
        ERR_error_string_n(error, text, (nuint)text.Length);
        return Encoding.ASCII.GetString(text, 0, Math.Max(0, Array.IndexOf(text, (byte)0)));
    }

    [LibraryImport(Ssl)]
    private static partial nint TLS_client_method();

    [LibraryImport(Ssl)]
    private static partial nint SSL_CTX_new(nint method);

    [LibraryImport(Ssl)]
    private static partial void SSL_CTX_free(nint context);

    [LibraryImport(Ssl)]
    private static partial nint SSL_CTX_ctrl(nint context, int command, nint larg, nint parg);

    [LibraryImport(Ssl)]
    private static unsafe partial void SSL_CTX_set_keylog_callback(nint context, delegate* unmanaged<nint, byte*, void> callback);

    [LibraryImport(Ssl, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int SSL_CTX_set_ciphersuites(nint context, string list);

    [LibraryImport(Ssl)]
    private static partial nint SSL_new(nint context);

    [LibraryImport(Ssl)]
    private static partial void SSL_free(nint ssl);

    [LibraryImport(Ssl)]
    private static partial int SSL_set_fd(nint ssl, int fd);

    [LibraryImport(Ssl)]
    private static partial int SSL_set_session(nint ssl, nint session);

    [LibraryImport(Ssl)]
    private static partial nint SSL_get1_session(nint ssl);

    [LibraryImport(Ssl)]
    private static partial void SSL_SESSION_free(nint session);

    [LibraryImport(Ssl)]
    private static partial int SSL_session_reused(nint ssl);

    [LibraryImport(Ssl, SetLastError = true)]
    private static partial int SSL_connect(nint ssl);

    [LibraryImport(Ssl, SetLastError = true)]
    private static partial int SSL_write(nint ssl, byte[] buffer, int length);

    [LibraryImport(Ssl, SetLastError = true)]
    private static partial int SSL_read(nint ssl, byte[] buffer, int length);

    [LibraryImport(Ssl)]
    private static partial int SSL_key_update(nint ssl, int type);

    [LibraryImport(Ssl)]
    private static partial int SSL_shutdown(nint ssl);

    [LibraryImport(Ssl)]
    private static partial int SSL_get_error(nint ssl, int result);

    [LibraryImport(Crypto)]
    private static partial ulong ERR_get_error();

    [LibraryImport(Crypto)]
    private static partial void ERR_clear_error();

    [LibraryImport(Crypto)]
    private static partial void ERR_error_string_n(ulong error, byte[] buffer, nuint length);
}
