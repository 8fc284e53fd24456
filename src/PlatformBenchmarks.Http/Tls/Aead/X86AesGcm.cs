using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace PlatformBenchmarks.Http.Tls.Aead;

/// <summary>
/// AES-GCM (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag, on x86's AES and carry-less multiply instructions:
/// the AEAD of TLS 1.3's two AES suites (RFC 8446 §5.2), for the records the loop protects. It exists because a record of
/// TFB's json is about 170 bytes, and OpenSSL's EVP calls on so few bytes cost more in their dispatch and per-call
/// parameters than in the cipher (docs/decisions/0023-aes-gcm-on-the-loop.md). Every step is an instruction whose time
/// does not depend on the key or the data (no tables), and the tag is compared in constant time.
/// </summary>
/// <remarks>
/// Counter mode runs eight blocks at a time, the depth that keeps the AES units busy; GHASH multiplies eight blocks by
/// H^8 .. H^1 and reduces once. Not safe for concurrent use; a record layer's direction owns one.
/// </remarks>
internal sealed partial class X86AesGcm : IDisposable
{
    public const int NonceLength = 12;
    public const int TagLength = 16;

    private const int BlockLength = 16;
    private const int Batch = 8;
    private const int BatchLength = Batch * BlockLength;
    private const int MaxRounds = 14;

    // The round keys, then H^1 .. H^Batch in GHASH's bit order; pinned so that the garbage collector leaves no copy of
    // them behind, zeroed by Dispose.
    private readonly Vector128<byte>[] _state = GC.AllocateArray<Vector128<byte>>(MaxRounds + 1 + Batch, pinned: true);
    private readonly int _rounds;

    /// <summary>Whether this machine has the instructions (AES-NI, PCLMULQDQ, SSSE3's byte shuffle).</summary>
    public static bool IsSupported => Aes.IsSupported && Pclmulqdq.IsSupported && Ssse3.IsSupported;

    /// <summary>A cipher for <paramref name="key"/>, AES-128's 16 bytes or AES-256's 32.</summary>
    public X86AesGcm(ReadOnlySpan<byte> key)
    {
        if (!IsSupported)
        {
            throw new PlatformNotSupportedException("AES-GCM here needs the AES-NI and PCLMULQDQ instructions.");
        }

        _rounds = key.Length switch
        {
            16 => 10,
            32 => 14,
            _ => throw new ArgumentException("An AES-GCM key is 16 or 32 bytes.", nameof(key)),
        };

        if (_rounds == 10)
        {
            ExpandKey128(key, _state);
        }
        else
        {
            ExpandKey256(key, _state);
        }

        // H is the block of zeros encrypted (SP 800-38D §6.4); its powers let eight blocks share one reduction.
        Vector128<ulong> h = ToField(EncryptBlock(Vector128<byte>.Zero));
        Span<Vector128<byte>> powers = _state.AsSpan(MaxRounds + 1, Batch);
        powers[0] = h.AsByte();
        for (int i = 1; i < Batch; i++)
        {
            powers[i] = Multiply(powers[i - 1].AsUInt64(), h).AsByte();
        }
    }

    /// <summary>
    /// Encrypts <paramref name="plaintext"/> into <paramref name="ciphertext"/> (the same length; the same memory for in
    /// place, or memory that does not overlap it) and writes the tag that authenticates it with
    /// <paramref name="associatedData"/>.
    /// </summary>
    public void Encrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext, Span<byte> tag, ReadOnlySpan<byte> associatedData)
    {
        CheckArguments(nonce, plaintext.Length, ciphertext.Length, tag.Length);
        Vector128<byte> j0 = CounterBlock(nonce);
        Vector128<ulong> y = HashAssociatedData(associatedData);
        y = Crypt(j0, plaintext, ciphertext, encrypt: true, y, associatedData.Length);
        Finish(j0, y).CopyTo(tag);
    }

    /// <summary>
    /// Decrypts <paramref name="ciphertext"/> into <paramref name="plaintext"/> (the same length; the same memory, or
    /// memory that does not overlap it) and returns whether <paramref name="tag"/> authenticates it with
    /// <paramref name="associatedData"/>; on false the plaintext has been cleared.
    /// </summary>
    public bool TryDecrypt(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag, Span<byte> plaintext, ReadOnlySpan<byte> associatedData)
    {
        CheckArguments(nonce, ciphertext.Length, plaintext.Length, tag.Length);
        Vector128<byte> j0 = CounterBlock(nonce);
        Vector128<ulong> y = HashAssociatedData(associatedData);
        y = Crypt(j0, ciphertext, plaintext, encrypt: false, y, associatedData.Length);
        Vector128<byte> expected = Finish(j0, y);

        // One comparison of all sixteen bytes: its time does not depend on where they differ.
        if (Vector128.EqualsAll(expected, Vector128.Create(tag)))
        {
            return true;
        }

        plaintext.Clear();
        return false;
    }

    public void Dispose() => Array.Clear(_state);

    private static void CheckArguments(ReadOnlySpan<byte> nonce, int inputLength, int outputLength, int tagLength)
    {
        // SP 800-38D §5.2.1.1 allows 2^32 - 2 blocks under one nonce; a span is shorter, so only shapes are checked.
        if (nonce.Length != NonceLength || tagLength != TagLength || inputLength != outputLength)
        {
            ThrowArguments();
        }
    }

    [DoesNotReturn]
    private static void ThrowArguments() =>
        throw new ArgumentException("AES-GCM takes a 12-byte nonce, a 16-byte tag and an output as long as its input.");

    /// <summary>J0, the nonce followed by the 32-bit counter 1 (SP 800-38D §7.1); the data's counters start at 2.</summary>
    private static Vector128<byte> CounterBlock(ReadOnlySpan<byte> nonce)
    {
        Span<byte> block = stackalloc byte[BlockLength];
        nonce.CopyTo(block);
        BinaryPrimitives.WriteUInt32BigEndian(block[NonceLength..], 1);
        return Vector128.Create((ReadOnlySpan<byte>)block);
    }

    /// <summary>The counter block <paramref name="counter"/> steps after <paramref name="j0"/> (inc32, big-endian).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> Counter(Vector128<byte> j0, uint counter) =>
        j0.AsUInt32().WithElement(3, BinaryPrimitives.ReverseEndianness(counter + 1)).AsByte();

    /// <summary>
    /// Counter mode over <paramref name="input"/> into <paramref name="output"/>, with GHASH over the ciphertext (the
    /// output when encrypting, the input when decrypting) and the lengths block folded into <paramref name="y"/>.
    /// </summary>
    private Vector128<ulong> Crypt(Vector128<byte> j0, ReadOnlySpan<byte> input, Span<byte> output, bool encrypt, Vector128<ulong> y, int associatedLength)
    {
        ref byte source = ref MemoryMarshal.GetReference(input);
        ref byte destination = ref MemoryMarshal.GetReference(output);
        int length = input.Length;
        int offset = 0;
        uint counter = 1;

        // Invariant of the batches below: offset + BatchLength <= length, the length of both spans.
        while (length - offset >= BatchLength)
        {
            ref byte from = ref Unsafe.Add(ref source, offset);
            ref byte to = ref Unsafe.Add(ref destination, offset);
            if (!encrypt)
            {
                y = HashBatch(y, ref from);
            }

            XorBatch(j0, counter, ref from, ref to);
            if (encrypt)
            {
                y = HashBatch(y, ref to);
            }

            counter += Batch;
            offset += BatchLength;
        }

        // The last blocks, fewer than a batch (possibly none), go through a copy padded with zeros, a whole batch long,
        // with the lengths block (SP 800-38D §7.1 step 5) after the ciphertext's last block: a batch costs the AES units
        // what one block does, as the rounds of one block wait on each other.
        int rest = length - offset;
        int hashed = (rest + BlockLength - 1) / BlockLength * BlockLength;
        Span<byte> last = stackalloc byte[BatchLength + BlockLength];
        last.Clear();
        input.Slice(offset, rest).CopyTo(last);
        if (encrypt && rest > 0)
        {
            XorBatch(j0, counter, ref MemoryMarshal.GetReference(last), ref MemoryMarshal.GetReference(last));
            last[..rest].CopyTo(output[offset..]);
            // The ciphertext is hashed, so what the keystream left after it is zeros again.
            last[rest..].Clear();
        }

        BinaryPrimitives.WriteUInt64BigEndian(last[hashed..], (ulong)associatedLength * 8);
        BinaryPrimitives.WriteUInt64BigEndian(last[(hashed + 8)..], (ulong)length * 8);
        y = Hash(y, last[..(hashed + BlockLength)]);
        if (!encrypt && rest > 0)
        {
            XorBatch(j0, counter, ref MemoryMarshal.GetReference(last), ref MemoryMarshal.GetReference(last));
            last[..rest].CopyTo(output[offset..]);
        }

        last.Clear();
        return y;
    }

    /// <summary>The tag: GHASH's result under the encrypted J0 (SP 800-38D §7.1 step 6).</summary>
    private Vector128<byte> Finish(Vector128<byte> j0, Vector128<ulong> y) => EncryptBlock(j0) ^ FromField(y);

    private Vector128<ulong> HashAssociatedData(ReadOnlySpan<byte> associatedData)
    {
        Vector128<ulong> y = Vector128<ulong>.Zero;
        int whole = associatedData.Length & ~(BlockLength - 1);
        y = Hash(y, associatedData[..whole]);
        if (whole < associatedData.Length)
        {
            Span<byte> padded = stackalloc byte[BlockLength];
            padded.Clear();
            associatedData[whole..].CopyTo(padded);
            y = Hash(y, padded);
        }

        return y;
    }

    /// <summary>
    /// Eight counter blocks from <paramref name="counter"/> on, encrypted side by side, XORed with the 128 bytes at
    /// <paramref name="from"/> into the 128 bytes at <paramref name="to"/> (the same place, or places that do not overlap).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void XorBatch(Vector128<byte> j0, uint counter, ref byte from, ref byte to)
    {
        ref Vector128<byte> keys = ref MemoryMarshal.GetArrayDataReference(_state);
        Vector128<byte> key = keys;
        Vector128<byte> b0 = Counter(j0, counter) ^ key;
        Vector128<byte> b1 = Counter(j0, counter + 1) ^ key;
        Vector128<byte> b2 = Counter(j0, counter + 2) ^ key;
        Vector128<byte> b3 = Counter(j0, counter + 3) ^ key;
        Vector128<byte> b4 = Counter(j0, counter + 4) ^ key;
        Vector128<byte> b5 = Counter(j0, counter + 5) ^ key;
        Vector128<byte> b6 = Counter(j0, counter + 6) ^ key;
        Vector128<byte> b7 = Counter(j0, counter + 7) ^ key;
        int rounds = _rounds;
        for (int r = 1; r < rounds; r++)
        {
            key = Unsafe.Add(ref keys, r);
            b0 = Aes.Encrypt(b0, key);
            b1 = Aes.Encrypt(b1, key);
            b2 = Aes.Encrypt(b2, key);
            b3 = Aes.Encrypt(b3, key);
            b4 = Aes.Encrypt(b4, key);
            b5 = Aes.Encrypt(b5, key);
            b6 = Aes.Encrypt(b6, key);
            b7 = Aes.Encrypt(b7, key);
        }

        key = Unsafe.Add(ref keys, rounds);
        b0 = Aes.EncryptLast(b0, key) ^ Vector128.LoadUnsafe(ref from);
        b1 = Aes.EncryptLast(b1, key) ^ Vector128.LoadUnsafe(ref from, 16);
        b2 = Aes.EncryptLast(b2, key) ^ Vector128.LoadUnsafe(ref from, 32);
        b3 = Aes.EncryptLast(b3, key) ^ Vector128.LoadUnsafe(ref from, 48);
        b4 = Aes.EncryptLast(b4, key) ^ Vector128.LoadUnsafe(ref from, 64);
        b5 = Aes.EncryptLast(b5, key) ^ Vector128.LoadUnsafe(ref from, 80);
        b6 = Aes.EncryptLast(b6, key) ^ Vector128.LoadUnsafe(ref from, 96);
        b7 = Aes.EncryptLast(b7, key) ^ Vector128.LoadUnsafe(ref from, 112);
        b0.StoreUnsafe(ref to);
        b1.StoreUnsafe(ref to, 16);
        b2.StoreUnsafe(ref to, 32);
        b3.StoreUnsafe(ref to, 48);
        b4.StoreUnsafe(ref to, 64);
        b5.StoreUnsafe(ref to, 80);
        b6.StoreUnsafe(ref to, 96);
        b7.StoreUnsafe(ref to, 112);
    }

    private Vector128<byte> EncryptBlock(Vector128<byte> block)
    {
        ref Vector128<byte> keys = ref MemoryMarshal.GetArrayDataReference(_state);
        block ^= keys;
        int rounds = _rounds;
        for (int r = 1; r < rounds; r++)
        {
            block = Aes.Encrypt(block, Unsafe.Add(ref keys, r));
        }

        return Aes.EncryptLast(block, Unsafe.Add(ref keys, rounds));
    }

    /// <summary>AES-128's key schedule (FIPS 197 §5.2): ten round keys after the key, each from the one before.</summary>
    private static void ExpandKey128(ReadOnlySpan<byte> key, Span<Vector128<byte>> keys)
    {
        var k = Vector128.Create(key);
        keys[0] = k;
        keys[1] = k = NextKey(k, Aes.KeygenAssist(k, 0x01), 0xFF);
        keys[2] = k = NextKey(k, Aes.KeygenAssist(k, 0x02), 0xFF);
        keys[3] = k = NextKey(k, Aes.KeygenAssist(k, 0x04), 0xFF);
        keys[4] = k = NextKey(k, Aes.KeygenAssist(k, 0x08), 0xFF);
        keys[5] = k = NextKey(k, Aes.KeygenAssist(k, 0x10), 0xFF);
        keys[6] = k = NextKey(k, Aes.KeygenAssist(k, 0x20), 0xFF);
        keys[7] = k = NextKey(k, Aes.KeygenAssist(k, 0x40), 0xFF);
        keys[8] = k = NextKey(k, Aes.KeygenAssist(k, 0x80), 0xFF);
        keys[9] = k = NextKey(k, Aes.KeygenAssist(k, 0x1B), 0xFF);
        keys[10] = NextKey(k, Aes.KeygenAssist(k, 0x36), 0xFF);
    }

    /// <summary>
    /// AES-256's key schedule (FIPS 197 §5.2): round keys in pairs; the first of each takes the rotated, substituted last
    /// word of the one before with the round constant, the second the substituted last word alone.
    /// </summary>
    private static void ExpandKey256(ReadOnlySpan<byte> key, Span<Vector128<byte>> keys)
    {
        var a = Vector128.Create(key);
        var b = Vector128.Create(key[BlockLength..]);
        keys[0] = a;
        keys[1] = b;
        keys[2] = a = NextKey(a, Aes.KeygenAssist(b, 0x01), 0xFF);
        keys[3] = b = NextKey(b, Aes.KeygenAssist(a, 0x00), 0xAA);
        keys[4] = a = NextKey(a, Aes.KeygenAssist(b, 0x02), 0xFF);
        keys[5] = b = NextKey(b, Aes.KeygenAssist(a, 0x00), 0xAA);
        keys[6] = a = NextKey(a, Aes.KeygenAssist(b, 0x04), 0xFF);
        keys[7] = b = NextKey(b, Aes.KeygenAssist(a, 0x00), 0xAA);
        keys[8] = a = NextKey(a, Aes.KeygenAssist(b, 0x08), 0xFF);
        keys[9] = b = NextKey(b, Aes.KeygenAssist(a, 0x00), 0xAA);
        keys[10] = a = NextKey(a, Aes.KeygenAssist(b, 0x10), 0xFF);
        keys[11] = b = NextKey(b, Aes.KeygenAssist(a, 0x00), 0xAA);
        keys[12] = a = NextKey(a, Aes.KeygenAssist(b, 0x20), 0xFF);
        keys[13] = NextKey(b, Aes.KeygenAssist(a, 0x00), 0xAA);
        keys[14] = NextKey(a, Aes.KeygenAssist(keys[13], 0x40), 0xFF);
    }

    /// <summary>
    /// The next round key from <paramref name="previous"/>: each word is the XOR of the words before it in the previous
    /// key and the word <paramref name="lane"/> selects from the key generation assist.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<byte> NextKey(Vector128<byte> previous, Vector128<byte> assist, [ConstantExpected] byte lane)
    {
        Vector128<byte> word = Sse2.Shuffle(assist.AsUInt32(), lane).AsByte();
        previous ^= Sse2.ShiftLeftLogical128BitLane(previous, 4);
        previous ^= Sse2.ShiftLeftLogical128BitLane(previous, 4);
        previous ^= Sse2.ShiftLeftLogical128BitLane(previous, 4);
        return previous ^ word;
    }
}
