using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.InteropServices;
using System.Security.Cryptography;

namespace PlatformBenchmarks.Http.Tls.OpenSsl;

/// <summary>
/// TLS 1.3's records on the loop (<see cref="TlsRecordLayer.Loop"/>, docs/decisions/0022-tls13-records-on-the-loop.md):
/// OpenSSL runs the handshake, its keylog callback hands this connection the two application traffic secrets, and from
/// the client's Finished on each record is sealed and opened by <see cref="Tls13RecordLayer"/>, straight between the
/// transport's buffers and the codec's, with no BIO, no copy and no OpenSSL state machine between.
/// </summary>
/// <remarks>
/// Where the records start: OpenSSL is given the client's records only up to the one that ends the handshake (see
/// <see cref="NextHandshakeBytes"/>), so the client's first application record is the loop's, with sequence number 0.
/// OpenSSL's last records under the server's secret (its session tickets) are counted in the sending BIO from the point
/// the secret was made, so the loop's first record takes the next sequence number (RFC 8446 §5.3).
/// </remarks>
internal sealed partial class OpenSslConnection
{
    /// <summary>The slot SSL_set_app_data uses: the connection's handle, for the keylog callback.</summary>
    private const int AppDataSlot = 0;

    private static ReadOnlySpan<byte> ServerSecretLabel => "SERVER_TRAFFIC_SECRET_0 "u8;

    private static ReadOnlySpan<byte> ClientSecretLabel => "CLIENT_TRAFFIC_SECRET_0 "u8;

    private GCHandle<OpenSslConnection> _self;
    private byte[]? _clientSecret;
    private byte[]? _serverSecret;
    private ulong _serverSecretFrom = ulong.MaxValue;
    private ulong _serverRecords;
    private long _handshakeRecordLeft;
    private Tls13RecordLayer? _records;
    private readonly bool _evpAead;
    private bool _openSslDone;
    private bool _closeSent;
    private bool _keyUpdateOwed;
    private bool _unflushed;
    private TlsAlert _alertOwed = TlsAlert.None;

    /// <summary>
    /// OpenSSL's keylog callback: takes the application traffic secrets of the connection whose handshake makes them.
    /// Nothing is written anywhere.
    /// </summary>
    /// <remarks>
    /// Unsafe by OpenSSL's signature. Invariants: OpenSSL calls it inside <c>SSL_do_handshake</c>, which the connection
    /// runs under its gate; <paramref name="line"/> is a NUL-terminated string valid for the call (OpenSSL clears and
    /// frees it after); the SSL's app data is the connection's handle while it watches for secrets, and 0 after.
    /// </remarks>
    [UnmanagedCallersOnly]
    internal static unsafe void OnSecret(nint ssl, byte* line)
    {
        nint self = LibSsl.SSL_get_ex_data(ssl, AppDataSlot);
        if (self != 0)
        {
            GCHandle<OpenSslConnection>.FromIntPtr(self).Target.TakeSecret(MemoryMarshal.CreateReadOnlySpanFromNullTerminated(line));
        }
    }

    private void WatchSecrets()
    {
        _self = new GCHandle<OpenSslConnection>(this);
        if (LibSsl.SSL_set_ex_data(_ssl, AppDataSlot, GCHandle<OpenSslConnection>.ToIntPtr(_self)) != 1)
        {
            // No secrets, no records on the loop: OpenSSL keeps them, and nothing else changes.
            _self.Dispose();
        }
    }

    /// <summary>
    /// Keeps the secret a keylog line names (label, client random, secret, in hex: NSS's key log format), and for the
    /// server's, how many bytes OpenSSL had written by then: its records from there on are under that secret.
    /// </summary>
    private void TakeSecret(ReadOnlySpan<byte> line)
    {
        bool server = line.StartsWith(ServerSecretLabel);
        if (!server && !line.StartsWith(ClientSecretLabel))
        {
            return;
        }

        ReadOnlySpan<byte> hex = line[(line.LastIndexOf((byte)' ') + 1)..];
        Span<char> digits = stackalloc char[96];
        if (hex.Length is 0 or > 96 || hex.Length % 2 != 0)
        {
            return;
        }

        // Pinned, so the garbage collector leaves no copy of a secret behind when it compacts; zeroed when dropped.
        byte[] secret = GC.AllocateArray<byte>(hex.Length / 2, pinned: true);
        for (int i = 0; i < hex.Length; i++)
        {
            digits[i] = (char)hex[i];
        }

        OperationStatus status = Convert.FromHexString(digits[..hex.Length], secret, out _, out int written);
        CryptographicOperations.ZeroMemory(MemoryMarshal.AsBytes(digits));
        if (status != OperationStatus.Done || written != secret.Length)
        {
            CryptographicOperations.ZeroMemory(secret);
            return;
        }

        if (server)
        {
            _serverSecret = secret;
            _serverSecretFrom = LibSsl.BIO_number_written(_sending);
        }
        else
        {
            _clientSecret = secret;
        }
    }

    /// <summary>
    /// Counts OpenSSL's records under the server's application secret among those in the sending BIO; the caller holds
    /// the gate, and the BIO is emptied after each handshake step, so each record is counted once.
    /// </summary>
    private unsafe void CountServerRecords()
    {
        if (_serverSecret is null || _disposed)
        {
            return;
        }

        nint length = LibSsl.BIO_get_mem_data(_sending, out nint data);
        ulong start = LibSsl.BIO_number_read(_sending);
        // Invariant: a memory BIO's unread bytes are contiguous at data for length bytes until the BIO is next used;
        // OpenSSL writes whole records into it, and only this connection uses it, under the gate.
        var pending = new ReadOnlySpan<byte>((void*)data, checked((int)length));
        for (int offset = 0; offset + Tls13RecordLayer.HeaderLength <= pending.Length;
            offset += Tls13RecordLayer.HeaderLength + ((pending[offset + 3] << 8) | pending[offset + 4]))
        {
            if (start + (ulong)offset >= _serverSecretFrom)
            {
                _serverRecords++;
            }
        }
    }

    /// <summary>
    /// After OpenSSL's handshake: on TLS 1.3 with a suite the loop protects, the records become the loop's; otherwise
    /// (TLS 1.2, no secrets) they stay OpenSSL's. The secrets are dropped either way. The caller holds the gate.
    /// </summary>
    private void HandshakeDone()
    {
        try
        {
            // Nothing of the client's after its Finished was given to OpenSSL; were anything left with it, it stays OpenSSL's.
            if (_clientSecret is null || _serverSecret is null || LibSsl.SSL_version(_ssl) != LibSsl.Tls13Version
                || LibSsl.BIO_ctrl_pending(_received) != 0 || LibSsl.SSL_pending(_handle) != 0)
            {
                return;
            }

            ushort suite = LibSsl.SSL_CIPHER_get_protocol_id(LibSsl.SSL_get_current_cipher(_ssl));
            _records = Tls13RecordLayer.Create(suite, _clientSecret, _serverSecret, _serverRecords, _evpAead);
            if (_records is not null)
            {
                // OpenSSL's record buffers, room for a whole record each way, are not used again: freed now rather than
                // held for the connection's life (docs/decisions/0022, "OpenSSL's record buffers"). Nothing is pending
                // in them (checked above); were OpenSSL ever to need them, it allocates them again.
                _ = LibSsl.SSL_free_buffers(_ssl);
            }
        }
        finally
        {
            ForgetSecrets();
        }
    }

    private void ForgetSecrets()
    {
        if (_self.IsAllocated)
        {
            LibSsl.SSL_set_ex_data(_ssl, AppDataSlot, 0);
            _self.Dispose();
        }

        CryptographicOperations.ZeroMemory(_clientSecret);
        CryptographicOperations.ZeroMemory(_serverSecret);
        _clientSecret = null;
        _serverSecret = null;
    }

    /// <summary>
    /// Opens what the transport receives into <paramref name="plaintext"/> until the client's close_notify, the end of
    /// the stream, a record refused, or the codec no longer reading; then completes it. Runs as the connection's receiving
    /// side for its whole life, resumed by the transport's reader.
    /// </summary>
    private async Task ReceiveRecordsAsync(PipeWriter plaintext)
    {
        PipeReader input = _transport.Input;
        try
        {
            while (true)
            {
                ReadResult result = await input.ReadAsync().ConfigureAwait(false);
                if (result.IsCanceled)
                {
                    return;
                }

                ReadOnlySequence<byte> buffer = result.Buffer;
                bool open = OpenRecords(ref buffer, plaintext, out bool opened);
                input.AdvanceTo(buffer.Start, result.Buffer.End);
                // At the end of the stream without a close_notify, what was whole is the codec's, then its input ends.
                if (!open || result.IsCompleted)
                {
                    break;
                }

                if (opened && (await plaintext.FlushAsync().ConfigureAwait(false)).IsCompleted)
                {
                    return;
                }
            }

            await plaintext.FlushAsync().ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is IOException or InvalidOperationException or OperationCanceledException)
        {
            // As on OpenSSL's records: a transport fault or abort ends the codec's input as the end of the stream would.
        }
        finally
        {
            await plaintext.CompleteAsync().ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Opens every whole record of <paramref name="buffer"/> into <paramref name="plaintext"/>, under one hold of the
    /// gate, and leaves <paramref name="buffer"/> at the first record not whole. False once the input has ended: a
    /// close_notify, an alert, or a record refused (its alert is owed, RFC 8446 §6.2).
    /// </summary>
    private bool OpenRecords(ref ReadOnlySequence<byte> buffer, PipeWriter plaintext, out bool opened)
    {
        opened = false;
        Span<byte> header = stackalloc byte[Tls13RecordLayer.HeaderLength];
        lock (_gate)
        {
            while (!_failed && !_disposed)
            {
                if (buffer.Length < Tls13RecordLayer.HeaderLength)
                {
                    return true;
                }

                buffer.Slice(0, Tls13RecordLayer.HeaderLength).CopyTo(header);
                int length = Tls13RecordLayer.HeaderLength + ((header[3] << 8) | header[4]);
                // After the handshake every record is protected application_data (RFC 8446 §5: a change_cipher_spec now is
                // an unexpected record); its legacy version is ignored (§5.1).
                if (header[0] != Tls13RecordLayer.ApplicationData)
                {
                    return Refuse(TlsAlert.UnexpectedMessage);
                }

                if (length - Tls13RecordLayer.HeaderLength > Tls13RecordLayer.MaxCiphertext)
                {
                    return Refuse(TlsAlert.RecordOverflow);
                }

                if (buffer.Length < length)
                {
                    return true;
                }

                TlsAlert alert = Open(buffer.Slice(0, length), plaintext, out byte type, out Span<byte> content);
                buffer = buffer.Slice(length);
                if (alert != TlsAlert.None)
                {
                    return Refuse(alert);
                }

                switch (type)
                {
                    case Tls13RecordLayer.ApplicationData:
                        plaintext.Advance(content.Length);
                        opened |= content.Length > 0;
                        break;
                    case Tls13RecordLayer.Alert:
                        return Alerted(content);
                    case Tls13RecordLayer.Handshake when IsKeyUpdate(content):
                        // RFC 8446 §4.6.3: the body is request_update alone; a body of another length cannot be decoded
                        // (§6.2: decode_error), a value other than 0 or 1 is an illegal_parameter. Otherwise the client's
                        // next records are under its next secret; if it asks, this side's KeyUpdate goes before its next
                        // application data, one for any number of requests.
                        if (content.Length != 5)
                        {
                            return Refuse(TlsAlert.DecodeError);
                        }

                        if (content[4] > 1)
                        {
                            return Refuse(TlsAlert.IllegalParameter);
                        }

                        _records!.UpdateReadKey();
                        _keyUpdateOwed |= content[4] == 1;
                        break;
                    default:
                        // Any other message after the handshake (a NewSessionTicket from a client, a KeyUpdate sharing its
                        // record) or content type. A KeyUpdate fragmented across records, which RFC 8446 §5.1 allows, is
                        // refused too: it is 5 bytes, no client splits it, and joining fragments would hold state per
                        // connection for it.
                        return Refuse(TlsAlert.UnexpectedMessage);
                }
            }

            return false;
        }
    }

    /// <summary>
    /// Opens one whole record into the codec's next buffer; its content, not yet advanced over, in <paramref name="content"/>.
    /// </summary>
    private TlsAlert Open(ReadOnlySequence<byte> record, PipeWriter plaintext, out byte type, out Span<byte> content)
    {
        Span<byte> destination = plaintext.GetSpan((int)record.Length - Tls13RecordLayer.HeaderLength);
        TlsAlert alert;
        int length;
        if (record.IsSingleSegment)
        {
            alert = _records!.Open(record.FirstSpan, destination, out type, out length);
        }
        else
        {
            // A record across two of the transport's blocks: joined once, then opened.
            byte[] joined = ArrayPool<byte>.Shared.Rent((int)record.Length);
            record.CopyTo(joined);
            alert = _records!.Open(joined.AsSpan(0, (int)record.Length), destination, out type, out length);
            ArrayPool<byte>.Shared.Return(joined);
        }

        content = destination[..length];
        return alert;
    }

    /// <summary>
    /// A KeyUpdate, whole and alone in its record (RFC 8446 §4.6.3, §5.1): type 24, then a length that spans the rest.
    /// </summary>
    private static bool IsKeyUpdate(ReadOnlySpan<byte> message) =>
        message is [24, _, _, _, ..] && message.Length - 4 == ((message[1] << 16) | (message[2] << 8) | message[3]);

    /// <summary>
    /// The client's alert (RFC 8446 §6): a close_notify ends its input, and this side still answers with its own; a
    /// user_canceled is followed by one; any other ends the connection with nothing more sent.
    /// </summary>
    private bool Alerted(ReadOnlySpan<byte> alert)
    {
        if (alert.Length != 2)
        {
            return Refuse(TlsAlert.DecodeError);
        }

        if (alert[1] == (byte)TlsAlert.UserCanceled)
        {
            return true;
        }

        if (alert[1] != (byte)TlsAlert.CloseNotify)
        {
            _failed = true;
        }

        return false;
    }

    /// <summary>The connection fails: its alert goes out with its end, and nothing else does.</summary>
    private bool Refuse(TlsAlert alert)
    {
        _failed = true;
        _alertOwed = alert;
        return false;
    }

    /// <summary>
    /// Seals <paramref name="data"/> into the transport's output, after this side's KeyUpdate when the client asked for
    /// one; nothing is flushed. The caller holds the gate.
    /// </summary>
    private void SealHeld(ReadOnlySpan<byte> data, PipeWriter output)
    {
        // Nothing to seal is not a send: the flush of a close_notify or an alert already sealed still goes ahead.
        if (data.IsEmpty)
        {
            return;
        }

        if (_failed || _disposed || _closeSent)
        {
            throw new IOException("The TLS connection failed or has sent its close_notify, and no longer sends.");
        }

        if (_keyUpdateOwed)
        {
            _keyUpdateOwed = false;
            SealRecords([24, 0, 0, 1, 0], Tls13RecordLayer.Handshake, output);
            _records!.UpdateWriteKey();
        }

        SealRecords(data, Tls13RecordLayer.ApplicationData, output);
    }

    /// <summary>Whether anything was sealed since the last flush, with <paramref name="data"/> sealed first.</summary>
    private bool SendRecordsHeld(ReadOnlySpan<byte> data, PipeWriter output)
    {
        SealHeld(data, output);
        bool any = _unflushed;
        _unflushed = false;
        return any;
    }

    /// <summary>
    /// The end of this side: a close_notify (RFC 8446 §6.1), or after a refused record the alert owed for it; nothing
    /// after the client's own error alert. The caller holds the gate.
    /// </summary>
    private void ShutdownRecordsHeld(PipeWriter output)
    {
        if (_disposed)
        {
            return;
        }

        if (!_failed)
        {
            // Only this side's sending ends: the client's records are still opened (a lingering close reads them).
            if (!_closeSent)
            {
                _closeSent = true;
                SealRecords([1, (byte)TlsAlert.CloseNotify], Tls13RecordLayer.Alert, output);
            }
        }
        else if (_alertOwed != TlsAlert.None)
        {
            SealRecords([2, (byte)_alertOwed], Tls13RecordLayer.Alert, output);
            _alertOwed = TlsAlert.None;
        }
    }

    /// <summary>
    /// Seals <paramref name="data"/> as records of <paramref name="type"/>. What fits one of the transport's memory blocks
    /// (4 KiB) is sealed in place there. More is sealed as records of up to 2^14 bytes, as OpenSSL's are, in a pooled
    /// buffer and copied to the blocks: a client reads each record whole, so fewer records cost it fewer reads
    /// (docs/decisions/0022-tls13-records-on-the-loop.md, "Record sizes").
    /// </summary>
    private void SealRecords(ReadOnlySpan<byte> data, byte type, PipeWriter output)
    {
        const int Block = 4096;
        _unflushed = true;
        if (data.Length <= Block - Tls13RecordLayer.Overhead)
        {
            Span<byte> span = output.GetSpan(data.Length + Tls13RecordLayer.Overhead);
            output.Advance(_records!.Seal(data, type, span));
            return;
        }

        byte[] record = ArrayPool<byte>.Shared.Rent(Tls13RecordLayer.MaxPlaintext + Tls13RecordLayer.Overhead);
        try
        {
            do
            {
                int chunk = Math.Min(data.Length, Tls13RecordLayer.MaxPlaintext);
                output.Write(record.AsSpan(0, _records!.Seal(data[..chunk], type, record)));
                data = data[chunk..];
            }
            while (!data.IsEmpty);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(record);
        }
    }
}
