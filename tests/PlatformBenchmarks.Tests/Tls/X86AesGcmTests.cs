using System.Security.Cryptography;
using PlatformBenchmarks.Http.Tls.Aead;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// The loop's AES-GCM against .NET's <see cref="AesGcm"/> (the platform's, through OpenSSL here), which is independent of
/// it: the same ciphertext and tag for every length from 0 to 300 bytes and for whole records, both key sizes, associated
/// data of every shape a block boundary makes; each opens the other's; a changed bit anywhere is refused and leaves no
/// plaintext; the published test cases of the GCM specification answer as published.
/// </summary>
public class X86AesGcmTests
{
    public static TheoryData<int> KeySizes => new() { 16, 32 };

    [Fact]
    public void TheInstructionsAreHereOrTheConstructorSaysSo()
    {
        // This machine's kind has them; a machine without them must get the platform's refusal, not a wrong answer.
        if (X86AesGcm.IsSupported)
        {
            using var cipher = new X86AesGcm(new byte[16]);
        }
        else
        {
            Assert.Throws<PlatformNotSupportedException>(() => new X86AesGcm(new byte[16]));
        }
    }

    [Theory]
    [MemberData(nameof(KeySizes))]
    public void EveryLengthSealsAsThePlatformDoes(int keySize)
    {
        Assert.True(X86AesGcm.IsSupported, "the machines this runs on have AES-NI and PCLMULQDQ");
        var random = new Random(keySize);
        int[] lengths = [.. Enumerable.Range(0, 301), 1000, 4096, 8448, 16384, 16385, 16384 + 256];
        int[] associated = [0, 5, 13, 16, 17, 32, 40];
        byte[] key = new byte[keySize];
        random.NextBytes(key);
        using var ours = new X86AesGcm(key);
        using var theirs = new AesGcm(key, X86AesGcm.TagLength);
        foreach (int length in lengths)
        {
            byte[] nonce = new byte[X86AesGcm.NonceLength];
            byte[] plaintext = new byte[length];
            byte[] aad = new byte[associated[length % associated.Length]];
            random.NextBytes(nonce);
            random.NextBytes(plaintext);
            random.NextBytes(aad);

            byte[] expected = new byte[length];
            byte[] expectedTag = new byte[16];
            theirs.Encrypt(nonce, plaintext, expected, expectedTag, aad);

            byte[] sealedHere = new byte[length];
            byte[] tag = new byte[16];
            ours.Encrypt(nonce, plaintext, sealedHere, tag, aad);
            Assert.True(expected.AsSpan().SequenceEqual(sealedHere), $"ciphertext of {length} bytes, {aad.Length} associated");
            Assert.True(expectedTag.AsSpan().SequenceEqual(tag), $"tag of {length} bytes, {aad.Length} associated");

            // In place, as the record layer seals.
            byte[] inPlace = (byte[])plaintext.Clone();
            ours.Encrypt(nonce, inPlace, inPlace, tag, aad);
            Assert.True(expected.AsSpan().SequenceEqual(inPlace), $"in place, {length} bytes");

            // Each opens what the other sealed.
            byte[] opened = new byte[length];
            Assert.True(ours.TryDecrypt(nonce, expected, expectedTag, opened, aad), $"opening {length} bytes");
            Assert.True(plaintext.AsSpan().SequenceEqual(opened));
            theirs.Decrypt(nonce, sealedHere, tag, opened, aad);
            Assert.True(plaintext.AsSpan().SequenceEqual(opened));

            Assert.True(ours.TryDecrypt(nonce, inPlace, tag, inPlace, aad), $"opening {length} bytes in place");
            Assert.True(plaintext.AsSpan().SequenceEqual(inPlace));
        }
    }

    [Theory]
    [MemberData(nameof(KeySizes))]
    public void AChangedBitAnywhereIsRefusedAndLeavesNoPlaintext(int keySize)
    {
        var random = new Random(100 + keySize);
        byte[] key = new byte[keySize];
        byte[] nonce = new byte[12];
        byte[] plaintext = new byte[170];
        byte[] aad = [23, 3, 3, 0, 187];
        random.NextBytes(key);
        random.NextBytes(nonce);
        random.NextBytes(plaintext);
        using var cipher = new X86AesGcm(key);
        byte[] ciphertext = new byte[plaintext.Length];
        byte[] tag = new byte[16];
        cipher.Encrypt(nonce, plaintext, ciphertext, tag, aad);

        // Every bit of the ciphertext, the tag, the associated data and the nonce, one at a time.
        foreach (byte[] part in new[] { ciphertext, tag, aad, nonce })
        {
            for (int bit = 0; bit < part.Length * 8; bit++)
            {
                part[bit / 8] ^= (byte)(1 << (bit % 8));
                byte[] opened = new byte[plaintext.Length];
                opened.AsSpan().Fill(0xAA);
                Assert.False(cipher.TryDecrypt(nonce, ciphertext, tag, opened, aad));
                Assert.True(opened.AsSpan().IndexOfAnyExcept((byte)0) < 0, "a refused record leaves nothing of its plaintext");
                part[bit / 8] ^= (byte)(1 << (bit % 8));
            }
        }

        byte[] back = new byte[plaintext.Length];
        Assert.True(cipher.TryDecrypt(nonce, ciphertext, tag, back, aad));
        Assert.Equal(plaintext, back);
    }

    [Fact]
    public void ThePublishedTestCasesAnswerAsPublished()
    {
        // The GCM specification's (McGrew and Viega) test cases 1 and 2: a key, nonce and block of zeros.
        using var cipher = new X86AesGcm(new byte[16]);
        byte[] tag = new byte[16];
        cipher.Encrypt(new byte[12], [], [], tag, []);
        Assert.Equal(Convert.FromHexString("58e2fccefa7e3061367f1d57a4e7455a"), tag);

        byte[] ciphertext = new byte[16];
        cipher.Encrypt(new byte[12], new byte[16], ciphertext, tag, []);
        Assert.Equal(Convert.FromHexString("0388dace60b6a392f328c2b971b2fe78"), ciphertext);
        Assert.Equal(Convert.FromHexString("ab6e47d42cec13bdf53a67b21257bddf"), tag);
    }

    [Fact]
    public void WrongShapesAreRefused()
    {
        Assert.Throws<ArgumentException>(() => new X86AesGcm(new byte[24]));
        using var cipher = new X86AesGcm(new byte[16]);
        byte[] tag = new byte[16];
        Assert.Throws<ArgumentException>(() => cipher.Encrypt(new byte[8], new byte[4], new byte[4], tag, []));
        Assert.Throws<ArgumentException>(() => cipher.Encrypt(new byte[12], new byte[4], new byte[3], tag, []));
        Assert.Throws<ArgumentException>(() => cipher.Encrypt(new byte[12], new byte[4], new byte[4], new byte[12], []));
        Assert.Throws<ArgumentException>(() => cipher.TryDecrypt(new byte[12], new byte[4], tag, new byte[5], []));
    }
}
