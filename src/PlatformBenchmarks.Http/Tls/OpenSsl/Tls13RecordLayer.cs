using System.Buffers.Binary;
using System.Security.Cryptography;
using PlatformBenchmarks.Http.Tls.Aead;

namespace PlatformBenchmarks.Http.Tls.OpenSsl;

/// <summary>
/// TLS 1.3's record protection (RFC 8446 §5.2 and §5.3) for one connection after OpenSSL's handshake: the AEAD of the
/// negotiated suite (the loop's AES-GCM, or OpenSSL's through its EVP layer), keyed once per direction, a nonce per record.
/// What OpenSSL's own record layer does per record beyond that (its state machine, its BIOs, its provider parameters
/// read per record) is what this saves (docs/decisions/0022-tls13-records-on-the-loop.md).
/// </summary>
/// <remarks>Not safe for concurrent use: <see cref="OpenSslConnection"/> calls it under its gate.</remarks>
internal sealed class Tls13RecordLayer : IDisposable
{
    /// <summary>The record header: content type, legacy version, length (RFC 8446 §5.1).</summary>
    public const int HeaderLength = 5;

    public const int TagLength = 16;

    /// <summary>Header, content type byte and tag: what a record adds to its plaintext.</summary>
    public const int Overhead = HeaderLength + 1 + TagLength;

    /// <summary>The most plaintext a record carries (RFC 8446 §5.1).</summary>
    public const int MaxPlaintext = 1 << 14;

    /// <summary>The longest protected record a peer may send (RFC 8446 §5.2: 2^14 + 256).</summary>
    public const int MaxCiphertext = MaxPlaintext + 256;

    public const byte ApplicationData = 23;
    public const byte Handshake = 22;
    public const byte Alert = 21;

    private const int NonceLength = 12;

    private readonly Direction _read;
    private readonly Direction _write;

    private Tls13RecordLayer(Direction read, Direction write)
    {
        _read = read;
        _write = write;
    }

    /// <summary>
    /// The record layer for <paramref name="protocolId"/> (the suite's IANA number), from the two application traffic
    /// secrets, with <paramref name="writeSequence"/> records already sent under the server's (OpenSSL's session
    /// tickets); null for a suite this layer does not protect, which stays with OpenSSL's.
    /// </summary>
    /// <remarks>
    /// The AES suites run on <see cref="X86AesGcm"/> where the machine has its instructions, unless
    /// <paramref name="openSslAead"/> asks for OpenSSL's EVP AEAD, as ChaCha20-Poly1305 always does
    /// (docs/decisions/0023-aes-gcm-on-the-loop.md).
    /// </remarks>
    public static Tls13RecordLayer? Create(ushort protocolId, ReadOnlySpan<byte> clientSecret, ReadOnlySpan<byte> serverSecret, ulong writeSequence, bool openSslAead = false)
    {
        var suite = Suite.For(protocolId);
        if (suite is null || clientSecret.Length != suite.HashLength || serverSecret.Length != suite.HashLength)
        {
            return null;
        }

        bool ownAead = suite.IsAesGcm && !openSslAead && X86AesGcm.IsSupported;
        Direction? read = null;
        try
        {
            read = new Direction(suite, clientSecret, encrypt: false, sequence: 0, ownAead);
            return new Tls13RecordLayer(read, new Direction(suite, serverSecret, encrypt: true, writeSequence, ownAead));
        }
        catch
        {
            read?.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Protects <paramref name="plaintext"/> (at most <see cref="MaxPlaintext"/> bytes) as one record of
    /// <paramref name="type"/> into <paramref name="record"/>, which holds at least its length plus <see cref="Overhead"/>;
    /// returns the record's length. No padding is added (RFC 8446 §5.4 leaves it to the sender).
    /// </summary>
    public int Seal(ReadOnlySpan<byte> plaintext, byte type, Span<byte> record)
    {
        int innerLength = plaintext.Length + 1;
        int length = HeaderLength + innerLength + TagLength;
        record[0] = ApplicationData;
        record[1] = 3;
        record[2] = 3;
        BinaryPrimitives.WriteUInt16BigEndian(record[3..], (ushort)(innerLength + TagLength));
        Span<byte> inner = record.Slice(HeaderLength, innerLength);
        plaintext.CopyTo(inner);
        inner[^1] = type;
        _write.Seal(record[..HeaderLength], inner, record.Slice(HeaderLength + innerLength, TagLength));
        return length;
    }

    /// <summary>
    /// Authenticates and decrypts <paramref name="record"/> (header and body, whole) into <paramref name="plaintext"/>,
    /// which holds at least the body's length less <see cref="TagLength"/>. On success, gives the inner content type and
    /// the content's length with its padding removed (RFC 8446 §5.4); otherwise the alert to send.
    /// </summary>
    public TlsAlert Open(ReadOnlySpan<byte> record, Span<byte> plaintext, out byte type, out int length)
    {
        type = 0;
        length = 0;
        int innerLength = record.Length - HeaderLength - TagLength;
        if (innerLength < 1)
        {
            // Too short for the content type: it cannot authenticate (RFC 8446 §5.2).
            return TlsAlert.BadRecordMac;
        }

        Span<byte> inner = plaintext[..innerLength];
        if (!_read.Open(record[..HeaderLength], record.Slice(HeaderLength, innerLength), inner, record[^TagLength..]))
        {
            inner.Clear();
            return TlsAlert.BadRecordMac;
        }

        // Content, type and padding together are at most 2^14 + 1 bytes (§5.4), however short the content.
        if (innerLength > MaxPlaintext + 1)
        {
            return TlsAlert.RecordOverflow;
        }

        // The content type is the last byte that is not zero; a record of zeros only has none (§5.4).
        int last = inner.LastIndexOfAnyExcept((byte)0);
        if (last < 0)
        {
            return TlsAlert.UnexpectedMessage;
        }

        type = inner[last];
        length = last;
        return TlsAlert.None;
    }

    /// <summary>The client's KeyUpdate (RFC 8446 §4.6.3): its next records come under its next traffic secret.</summary>
    public void UpdateReadKey() => _read.Update();

    /// <summary>This side's KeyUpdate, once its record is sealed: the next records go under the next secret.</summary>
    public void UpdateWriteKey() => _write.Update();

    public void Dispose()
    {
        _read.Dispose();
        _write.Dispose();
    }

    /// <summary>HKDF-Expand-Label (RFC 8446 §7.1) with an empty context.</summary>
    private static void ExpandLabel(HashAlgorithmName hash, ReadOnlySpan<byte> secret, ReadOnlySpan<byte> label, Span<byte> output)
    {
        // struct { uint16 length; opaque label<7..255> = "tls13 " + Label; opaque context<0..255>; }
        Span<byte> info = stackalloc byte[2 + 1 + 6 + label.Length + 1];
        BinaryPrimitives.WriteUInt16BigEndian(info, (ushort)output.Length);
        info[2] = (byte)(6 + label.Length);
        "tls13 "u8.CopyTo(info[3..]);
        label.CopyTo(info[9..]);
        info[^1] = 0;
        HKDF.Expand(hash, secret, output, info);
    }

    /// <summary>An AEAD suite of TLS 1.3 and the EVP cipher that runs it, fetched once per process.</summary>
    private sealed class Suite(string cipherName, HashAlgorithmName hash, int hashLength, int keyLength, bool isAesGcm)
    {
        private static readonly Suite s_aes128 = new("AES-128-GCM", HashAlgorithmName.SHA256, 32, 16, isAesGcm: true);
        private static readonly Suite s_aes256 = new("AES-256-GCM", HashAlgorithmName.SHA384, 48, 32, isAesGcm: true);
        private static readonly Suite s_chacha = new("ChaCha20-Poly1305", HashAlgorithmName.SHA256, 32, 32, isAesGcm: false);

        private nint _cipher;

        public HashAlgorithmName Hash => hash;

        public int HashLength => hashLength;

        public int KeyLength => keyLength;

        public bool IsAesGcm => isAesGcm;

        /// <summary>The EVP cipher, fetched on first use and kept for the process's life (OpenSSL 3's explicit fetch).</summary>
        public nint Cipher
        {
            get
            {
                if (_cipher == 0)
                {
                    nint cipher = LibSsl.EVP_CIPHER_fetch(0, cipherName, null);
                    if (cipher == 0)
                    {
                        throw new IOException(LibSsl.TakeError($"EVP_CIPHER_fetch({cipherName})"));
                    }

                    if (Interlocked.CompareExchange(ref _cipher, cipher, 0) != 0)
                    {
                        LibSsl.EVP_CIPHER_free(cipher);
                    }
                }

                return _cipher;
            }
        }

        // TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256 (RFC 8446 §B.4).
        public static Suite? For(ushort protocolId) => protocolId switch
        {
            0x1301 => s_aes128,
            0x1302 => s_aes256,
            0x1303 => s_chacha,
            _ => null,
        };
    }

    /// <summary>
    /// One direction's traffic secret, its key and IV (RFC 8446 §7.3), its sequence number, and its AEAD keyed once per
    /// secret: <see cref="X86AesGcm"/>, or an EVP cipher context; each record sets only its nonce (§5.3: the IV XOR the
    /// sequence number).
    /// </summary>
    private sealed class Direction : IDisposable
    {
        private readonly Suite _suite;
        private readonly bool _encrypt;
        private readonly bool _ownAead;
        private readonly byte[] _secret;
        // The secret and IV are pinned, so the garbage collector leaves no copy behind when it compacts; zeroed at the end.
        private readonly byte[] _iv = GC.AllocateArray<byte>(NonceLength, pinned: true);
        private X86AesGcm? _aead;
        private nint _context;
        private ulong _sequence;

        public Direction(Suite suite, ReadOnlySpan<byte> secret, bool encrypt, ulong sequence, bool ownAead)
        {
            _suite = suite;
            _encrypt = encrypt;
            _ownAead = ownAead;
            _secret = GC.AllocateArray<byte>(secret.Length, pinned: true);
            secret.CopyTo(_secret);
            _sequence = sequence;
            if (!ownAead)
            {
                _context = LibSsl.EVP_CIPHER_CTX_new();
                if (_context == 0)
                {
                    throw new IOException(LibSsl.TakeError("EVP_CIPHER_CTX_new"));
                }
            }

            Key();
        }

        /// <summary>Moves to the next traffic secret (RFC 8446 §7.2), with a sequence number from zero.</summary>
        public void Update()
        {
            Span<byte> next = stackalloc byte[_secret.Length];
            ExpandLabel(_suite.Hash, _secret, "traffic upd"u8, next);
            next.CopyTo(_secret);
            CryptographicOperations.ZeroMemory(next);
            _sequence = 0;
            Key();
        }

        /// <summary>Encrypts <paramref name="inner"/> in place and writes its tag, under the next sequence number.</summary>
        public void Seal(ReadOnlySpan<byte> header, Span<byte> inner, Span<byte> tag)
        {
            Span<byte> nonce = stackalloc byte[NonceLength];
            NextNonce(nonce);
            if (_aead is { } aead)
            {
                aead.Encrypt(nonce, inner, inner, tag, header);
                return;
            }

            Begin(nonce);
            Aad(header);
            Update(inner, inner);
            Check(LibSsl.EVP_CipherFinal_ex(_context, default, out _), "EVP_CipherFinal_ex");
            Check(LibSsl.EVP_CIPHER_CTX_ctrl(_context, LibSsl.EvpCtrlAeadGetTag, TagLength, tag), "EVP_CTRL_AEAD_GET_TAG");
        }

        /// <summary>
        /// Decrypts <paramref name="body"/> into <paramref name="inner"/> under the next sequence number; whether
        /// <paramref name="tag"/> authenticates it.
        /// </summary>
        public bool Open(ReadOnlySpan<byte> header, ReadOnlySpan<byte> body, Span<byte> inner, ReadOnlySpan<byte> tag)
        {
            Span<byte> nonce = stackalloc byte[NonceLength];
            NextNonce(nonce);
            if (_aead is { } aead)
            {
                return aead.TryDecrypt(nonce, body, tag, inner, header);
            }

            Begin(nonce);
            Aad(header);
            Update(body, inner);
            Check(LibSsl.EVP_CIPHER_CTX_ctrl(_context, LibSsl.EvpCtrlAeadSetTag, TagLength, tag), "EVP_CTRL_AEAD_SET_TAG");
            if (LibSsl.EVP_CipherFinal_ex(_context, default, out _) == 1)
            {
                return true;
            }

            // A failed tag leaves nothing a caller needs in this thread's error queue (0021: the queue is per thread).
            LibSsl.ClearErrors();
            return false;
        }

        public void Dispose()
        {
            CryptographicOperations.ZeroMemory(_secret);
            CryptographicOperations.ZeroMemory(_iv);
            _aead?.Dispose();
            _aead = null;
            if (_context != 0)
            {
                LibSsl.EVP_CIPHER_CTX_free(_context);
                _context = 0;
            }
        }

        /// <summary>The nonce of this record's sequence number; the number moves on.</summary>
        private void NextNonce(Span<byte> nonce)
        {
            // A sequence number must not wrap (§5.3); 2^64 records is beyond any connection, but the check is cheap.
            if (_sequence == ulong.MaxValue)
            {
                throw new IOException("The TLS sequence number would wrap; the connection must end.");
            }

            ulong sequence = _sequence++;
            _iv.CopyTo(nonce);
            ulong tail = BinaryPrimitives.ReadUInt64BigEndian(nonce[(NonceLength - 8)..]) ^ sequence;
            BinaryPrimitives.WriteUInt64BigEndian(nonce[(NonceLength - 8)..], tail);
        }

        private void Begin(ReadOnlySpan<byte> nonce)
        {
            Check(LibSsl.EVP_CipherInit_ex2(_context, 0, default, nonce, -1, 0), "EVP_CipherInit_ex2");
        }

        private void Aad(ReadOnlySpan<byte> header)
        {
            Check(LibSsl.EVP_CipherUpdate(_context, default, out _, header, header.Length), "EVP_CipherUpdate");
        }

        private void Update(ReadOnlySpan<byte> input, Span<byte> output)
        {
            Check(LibSsl.EVP_CipherUpdateData(_context, output, out int written, input, input.Length), "EVP_CipherUpdate");
            if (written != input.Length)
            {
                // The AEADs here are stream ciphers under EVP: every byte in gives one out, at once.
                throw new IOException("EVP_CipherUpdate held bytes back.");
            }
        }

        private void Key()
        {
            Span<byte> key = stackalloc byte[32];
            key = key[.._suite.KeyLength];
            ExpandLabel(_suite.Hash, _secret, "key"u8, key);
            ExpandLabel(_suite.Hash, _secret, "iv"u8, _iv);
            try
            {
                if (_ownAead)
                {
                    _aead?.Dispose();
                    _aead = new X86AesGcm(key);
                }
                else
                {
                    Check(LibSsl.EVP_CipherInit_ex2(_context, _suite.Cipher, key, default, _encrypt ? 1 : 0, 0), "EVP_CipherInit_ex2");
                }
            }
            finally
            {
                CryptographicOperations.ZeroMemory(key);
            }
        }

        private static void Check(int result, string operation)
        {
            if (result != 1)
            {
                throw new IOException(LibSsl.TakeError(operation));
            }
        }
    }
}

/// <summary>The alerts this server sends on a protected record it refuses (RFC 8446 §6.2); None when it accepts it.</summary>
internal enum TlsAlert : byte
{
    None = 255,
    CloseNotify = 0,
    UnexpectedMessage = 10,
    BadRecordMac = 20,
    RecordOverflow = 22,
    IllegalParameter = 47,
    DecodeError = 50,
    UserCanceled = 90,
}
