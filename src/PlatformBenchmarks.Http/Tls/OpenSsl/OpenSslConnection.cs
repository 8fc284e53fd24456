using System.Buffers;
using System.IO.Pipelines;
using System.Security.Authentication;

namespace PlatformBenchmarks.Http.Tls.OpenSsl;

/// <summary>
/// One TLS connection on OpenSSL directly: an <c>SSL</c> with two memory BIOs, driven by whichever thread resumes the
/// transport's pipes (the loop thread on our transports). Received ciphertext is written into the receiving BIO and
/// decrypted straight into the codec's input pipe; the codec's flushed plaintext is encrypted into the sending BIO and
/// read from it straight into the transport's output. No stream, no buffer between, no hand-off to another task
/// (docs/decisions/0021-tls-engine.md). On TLS 1.3 the records become the loop's after the handshake
/// (OpenSslConnection.Records.cs, docs/decisions/0022-tls13-records-on-the-loop.md).
/// </summary>
/// <remarks>
/// An <c>SSL</c> is not safe for concurrent use, and on Kestrel's sockets the receiving side and the codec's flush can
/// run on two threads at once, so every call into it holds <see cref="_gate"/> (uncontended on a loop). The BIOs are
/// owned by the <c>SSL</c> (<c>SSL_set_bio</c>): their pointers are valid until <see cref="Dispose"/> frees it, which the
/// TLS layer calls only once both sides have ended. The per-record calls take the <c>SSL</c> as <see cref="_handle"/>, under
/// the gate: the connection holds one reference on <see cref="_ssl"/> from construction to <see cref="Dispose"/>, so
/// the pointer is valid whenever <see cref="_disposed"/> is false, and no reference is taken per call.
/// </remarks>
internal sealed partial class OpenSslConnection : IDisposable
{
    private readonly SafeSslHandle _ssl;
    private readonly nint _handle;
    private readonly nint _received;
    private readonly nint _sending;
    private readonly IDuplexPipe _transport;
    private readonly Lock _gate = new();
    private bool _failed;
    private bool _disposed;

    public OpenSslConnection(OpenSslContext context, IDuplexPipe transport)
    {
        _transport = transport;
        _ssl = LibSsl.SSL_new(context.Handle);
        if (_ssl.IsInvalid)
        {
            throw new IOException(LibSsl.TakeError("SSL_new"));
        }

        _received = LibSsl.BIO_new(LibSsl.BIO_s_mem());
        _sending = LibSsl.BIO_new(LibSsl.BIO_s_mem());
        if (_received == 0 || _sending == 0)
        {
            FreeBio(_received);
            FreeBio(_sending);
            _ssl.Dispose();
            throw new IOException(LibSsl.TakeError("BIO_new"));
        }

        LibSsl.SSL_set_bio(_ssl, _received, _sending);
        LibSsl.SSL_set_accept_state(_ssl);
        bool added = false;
        _ssl.DangerousAddRef(ref added);
        _handle = _ssl.DangerousGetHandle();
        if (context.RecordsOnLoop)
        {
            _evpAead = context.RecordLayer == TlsRecordLayer.LoopEvp;
            WatchSecrets();
        }
    }

    /// <summary>
    /// Runs the handshake over the transport: what arrives goes to OpenSSL, what it answers is sent at once. Throws
    /// <see cref="AuthenticationException"/> when OpenSSL refuses the client, <see cref="IOException"/> when the peer
    /// ends the stream midway, <see cref="OperationCanceledException"/> on <paramref name="cancellationToken"/>.
    /// </summary>
    public async ValueTask HandshakeAsync(CancellationToken cancellationToken)
    {
        PipeReader input = _transport.Input;
        while (true)
        {
            ReadResult result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            if (result.IsCanceled)
            {
                throw new OperationCanceledException(cancellationToken);
            }

            // OpenSSL is given the records up to the one that ends the handshake; what follows stays in the transport's
            // input, not yet looked at, for the receiving side's first read.
            bool done = Handshake(result.Buffer, out long fed, out string? failure);
            SequencePosition consumed = result.Buffer.GetPosition(fed);
            input.AdvanceTo(consumed, done ? consumed : result.Buffer.End);
            // The server's flight, or the alert OpenSSL wrote before it refused the client.
            await SendAsync(cancellationToken).ConfigureAwait(false);
            if (failure is not null)
            {
                throw new AuthenticationException(failure);
            }

            if (done)
            {
                return;
            }

            if (result.IsCompleted)
            {
                throw new IOException("The client ended the stream during the TLS handshake.");
            }
        }
    }

    /// <summary>ALPN's choice, as one of the server's own protocols; empty when none was chosen.</summary>
    public unsafe ReadOnlyMemory<byte> ApplicationProtocol(ReadOnlyMemory<byte>[] protocols)
    {
        byte* selected;
        uint length;
        lock (_gate)
        {
            LibSsl.SSL_get0_alpn_selected(_ssl, &selected, &length);
            // Invariant: the bytes are the SSL's, valid while it lives; they are only compared here, under the gate.
            var chosen = new ReadOnlySpan<byte>(selected, (int)length);
            foreach (ReadOnlyMemory<byte> protocol in protocols)
            {
                if (chosen.Length > 0 && chosen.SequenceEqual(protocol.Span))
                {
                    return protocol;
                }
            }
        }

        return default;
    }

    /// <summary>
    /// Whether the version and suite negotiated meet HTTP/2's requirements (RFC 9113 §9.2), judged by
    /// <see cref="TlsPolicy.MeetsHttp2Requirements"/> from the suite's IANA name, as on the SslStream path.
    /// </summary>
    public bool MeetsHttp2Requirements()
    {
        lock (_gate)
        {
            int version = LibSsl.SSL_version(_ssl);
            if (version != LibSsl.Tls12Version)
            {
                return version == LibSsl.Tls13Version;
            }

            // The name is a static string of OpenSSL's (or null for a suite it cannot name): nothing to free.
            string? name = System.Runtime.InteropServices.Marshal.PtrToStringUTF8(LibSsl.SSL_CIPHER_standard_name(LibSsl.SSL_get_current_cipher(_ssl)));
            return Enum.TryParse(name, out System.Net.Security.TlsCipherSuite suite)
                && TlsPolicy.MeetsHttp2Requirements(System.Security.Authentication.SslProtocols.Tls12, suite);
        }
    }

    /// <summary>
    /// Decrypts what the transport receives into <paramref name="plaintext"/> until the client's close_notify, the end of
    /// the stream, a record OpenSSL refuses, or the codec no longer reading; then completes it. Runs as the connection's
    /// receiving side for its whole life, resumed by the transport's reader.
    /// </summary>
    public Task ReceiveAsync(PipeWriter plaintext) => _records is null ? ReceiveThroughOpenSslAsync(plaintext) : ReceiveRecordsAsync(plaintext);

    private async Task ReceiveThroughOpenSslAsync(PipeWriter plaintext)
    {
        PipeReader input = _transport.Input;
        try
        {
            // Application data may have come with the client's Finished: decrypt what the handshake left first.
            Decrypted state = Decrypt(default, plaintext, out bool decrypted);
            while (state == Decrypted.WantRead)
            {
                if (decrypted && (await plaintext.FlushAsync().ConfigureAwait(false)).IsCompleted)
                {
                    return;
                }

                ReadResult result = await input.ReadAsync().ConfigureAwait(false);
                if (result.IsCanceled)
                {
                    return;
                }

                state = Decrypt(result.Buffer, plaintext, out decrypted);
                input.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    // The end of the stream without a close_notify: what was whole is the codec's, then its input ends.
                    break;
                }
            }

            await plaintext.FlushAsync().ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is IOException or InvalidOperationException or OperationCanceledException)
        {
            // The transport faulted or was aborted (a reset; Kestrel's ConnectionAbortedException is a cancellation):
            // the codec's input ends as at the end of the stream.
        }
        finally
        {
            await plaintext.CompleteAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Encrypts <paramref name="data"/> into records (in the sending BIO, or on the loop into the transport's output); nothing is flushed yet.</summary>
    public void Encrypt(ReadOnlySpan<byte> data)
    {
        lock (_gate)
        {
            if (_records is not null)
            {
                // After a refused record the codec's last bytes are dropped, and the alert owed still goes out.
                if (!_failed && !_closeSent)
                {
                    SealHeld(data, _transport.Output);
                }

                return;
            }

            EncryptHeld(data);
        }
    }

    /// <summary>Writes the close_notify alert (RFC 8446 §6.1) into the sending BIO, unless the connection failed.</summary>
    public void Shutdown()
    {
        lock (_gate)
        {
            if (_records is not null)
            {
                ShutdownRecordsHeld(_transport.Output);
                return;
            }

            if (!_failed && !_disposed && LibSsl.SSL_shutdown(_ssl) < 0)
            {
                LibSsl.ERR_clear_error();
            }
        }
    }

    /// <summary>Moves what OpenSSL wrote into the sending BIO to the transport's output, and flushes it.</summary>
    public ValueTask<FlushResult> SendAsync(CancellationToken cancellationToken = default) => SendAsync(default, cancellationToken);

    /// <summary>
    /// Encrypts <paramref name="data"/> (one <c>SSL_write</c>: records of up to 2^14 bytes), moves the records and
    /// anything else OpenSSL wrote into the sending BIO to the transport's output, and flushes it: one hold of the gate
    /// per flush of the codec.
    /// </summary>
    public ValueTask<FlushResult> SendAsync(ReadOnlySpan<byte> data, CancellationToken cancellationToken = default)
    {
        PipeWriter output = _transport.Output;
        bool any = false;
        lock (_gate)
        {
            if (_records is null && !data.IsEmpty)
            {
                EncryptHeld(data);
            }

            // OpenSSL's records, the handshake's last ones (its session tickets) included, go before any of the loop's;
            // once they are sent, OpenSSL writes no more, and its BIO is not looked at again (BIO_ctrl is not cheap).
            nuint pending;
            while (!_openSslDone && !_disposed && (pending = LibSsl.BIO_ctrl_pending(_sending)) > 0)
            {
                int length = (int)Math.Min(pending, int.MaxValue);
                Span<byte> destination = output.GetSpan(length);
                int read = LibSsl.BIO_read(_sending, destination, Math.Min(length, destination.Length));
                if (read <= 0)
                {
                    break;
                }

                output.Advance(read);
                any = true;
            }

            if (_records is not null)
            {
                _openSslDone = true;
                any |= SendRecordsHeld(data, output);
            }
        }

        return any ? output.FlushAsync(cancellationToken) : default;
    }

    public void Dispose()
    {
        lock (_gate)
        {
            if (!_disposed)
            {
                _disposed = true;
                _records?.Dispose();
                ForgetSecrets();
                _ssl.DangerousRelease();
                _ssl.Dispose();
            }
        }
    }

    private void EncryptHeld(ReadOnlySpan<byte> data)
    {
        if (_failed || _disposed)
        {
            throw new IOException("The TLS connection failed and no longer sends.");
        }

        // A memory BIO grows as needed, so SSL_write takes everything at once (no partial writes are enabled).
        int written = LibSsl.SSL_write(_handle, data, data.Length);
        if (written != data.Length)
        {
            _failed = true;
            throw new IOException(LibSsl.TakeError("SSL_write"));
        }
    }

    /// <summary>Writes received records into the receiving BIO; the caller holds the gate and has checked the SSL lives.</summary>
    private void ReceiveHeld(ReadOnlySequence<byte> ciphertext)
    {
        foreach (ReadOnlyMemory<byte> segment in ciphertext)
        {
            // A memory BIO takes all of it or fails only when out of memory.
            if (!segment.IsEmpty && LibSsl.BIO_write(_received, segment.Span, segment.Length) != segment.Length)
            {
                throw new IOException(LibSsl.TakeError("BIO_write"));
            }
        }
    }

    /// <summary>
    /// Gives OpenSSL the received records one at a time, each whole or what there is of it, and runs the handshake after
    /// each; stops after the record that ends it, so that what the client sent after its Finished is not OpenSSL's
    /// (<paramref name="fed"/> is how much was given). Under one hold of the gate.
    /// </summary>
    private bool Handshake(ReadOnlySequence<byte> ciphertext, out long fed, out string? failure)
    {
        lock (_gate)
        {
            failure = null;
            fed = 0;
            if (_disposed)
            {
                // The BIO went with the SSL.
                throw new IOException("The TLS connection has ended.");
            }

            LibSsl.ClearErrors();
            while (NextHandshakeBytes(ciphertext.Slice(fed)) is long length and > 0)
            {
                ReceiveHeld(ciphertext.Slice(fed, length));
                fed += length;
                int result = LibSsl.SSL_do_handshake(_ssl);
                if (result == 1)
                {
                    CountServerRecords();
                    HandshakeDone();
                    return true;
                }

                if (LibSsl.SSL_get_error(_handle, result) != LibSsl.ErrorWantRead)
                {
                    _failed = true;
                    failure = LibSsl.TakeError("the handshake");
                    return false;
                }
            }

            // What OpenSSL wrote in this step is sent before the next: counted now, it is counted once.
            CountServerRecords();
            return false;
        }
    }

    /// <summary>
    /// How many of <paramref name="received"/>'s bytes go to OpenSSL next: the rest of a record given in part, or the
    /// next record (RFC 8446 §5.1: a 5-byte header, then its length) whole or in part; 0 until a header is whole.
    /// </summary>
    private long NextHandshakeBytes(ReadOnlySequence<byte> received)
    {
        if (received.IsEmpty)
        {
            return 0;
        }

        if (_handshakeRecordLeft == 0)
        {
            if (received.Length < Tls13RecordLayer.HeaderLength)
            {
                return 0;
            }

            Span<byte> header = stackalloc byte[Tls13RecordLayer.HeaderLength];
            received.Slice(0, Tls13RecordLayer.HeaderLength).CopyTo(header);
            // OpenSSL judges the header (a wrong type, version or length fails it at once), so garbage is given too.
            _handshakeRecordLeft = Tls13RecordLayer.HeaderLength + ((header[3] << 8) | header[4]);
        }

        long length = Math.Min(_handshakeRecordLeft, received.Length);
        _handshakeRecordLeft -= length;
        return length;
    }

    /// <summary>
    /// Writes <paramref name="ciphertext"/> into the receiving BIO and decrypts every whole record into
    /// <paramref name="plaintext"/>, under one hold of the gate.
    /// </summary>
    private Decrypted Decrypt(ReadOnlySequence<byte> ciphertext, PipeWriter plaintext, out bool decrypted)
    {
        decrypted = false;
        lock (_gate)
        {
            if (_failed || _disposed)
            {
                return Decrypted.Ended;
            }

            ReceiveHeld(ciphertext);
            // As in Handshake, once per read.
            LibSsl.ClearErrors();

            while (true)
            {
                // SSL_read returns one record's plaintext (RFC 8446 §5.1: up to 2^14 bytes) or the part that fits.
                Span<byte> destination = plaintext.GetSpan(4096);
                int read = LibSsl.SSL_read(_handle, destination, destination.Length);
                if (read > 0)
                {
                    plaintext.Advance(read);
                    decrypted = true;
                    // Nothing left of the record and no byte of another: a further SSL_read could only want more.
                    if (LibSsl.SSL_pending(_handle) == 0 && LibSsl.BIO_ctrl_pending(_received) == 0)
                    {
                        return Decrypted.WantRead;
                    }

                    continue;
                }

                int error = LibSsl.SSL_get_error(_handle, read);
                if (error == LibSsl.ErrorWantRead)
                {
                    return Decrypted.WantRead;
                }

                if (error != LibSsl.ErrorZeroReturn)
                {
                    // A record that does not authenticate, or a message not allowed here (renegotiation): OpenSSL has
                    // written its fatal alert, which goes out with the connection's end, and no close_notify follows.
                    _failed = true;
                    LibSsl.ERR_clear_error();
                }

                return Decrypted.Ended;
            }
        }
    }

    private static void FreeBio(nint bio)
    {
        if (bio != 0)
        {
            _ = LibSsl.BIO_free(bio);
        }
    }

    private enum Decrypted
    {
        WantRead,
        Ended,
    }
}
