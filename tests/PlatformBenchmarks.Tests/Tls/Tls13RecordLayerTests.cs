using System.Text;
using PlatformBenchmarks.Http.Tls.OpenSsl;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// The record layer's model of a protected record (RFC 8446 §5.2 to §5.4): what it seals, the peer with the two secrets
/// swapped opens; a changed byte, a record of zeros only, or content and padding past 2^14 + 1 bytes is refused with its
/// alert; padding is taken off; a KeyUpdate on one side needs one on the other.
/// </summary>
public class Tls13RecordLayerTests
{
    private static readonly byte[] s_clientSecret = [.. Enumerable.Range(1, 48).Select(i => (byte)i)];
    private static readonly byte[] s_serverSecret = [.. Enumerable.Range(101, 48).Select(i => (byte)i)];

    public static TheoryData<ushort> Suites => new() { 0x1301, 0x1302, 0x1303 };

    /// <summary>
    /// The server's layer, and the client's: the same secrets, each reading what the other writes. The server's AES suites
    /// run on the loop's AES-GCM, the client's on OpenSSL's EVP AEAD, so each test also checks one against the other.
    /// </summary>
    private static (Tls13RecordLayer Server, Tls13RecordLayer Client) Pair(ushort suite, ulong written = 0)
    {
        int length = suite == 0x1302 ? 48 : 32;
        Tls13RecordLayer server = Tls13RecordLayer.Create(suite, s_clientSecret.AsSpan(0, length), s_serverSecret.AsSpan(0, length), written)!;
        Tls13RecordLayer client = Tls13RecordLayer.Create(suite, s_serverSecret.AsSpan(0, length), s_clientSecret.AsSpan(0, length), 0, openSslAead: true)!;
        return (server, client);
    }

    private static byte[] Seal(Tls13RecordLayer layer, ReadOnlySpan<byte> plaintext, byte type = Tls13RecordLayer.ApplicationData)
    {
        byte[] record = new byte[plaintext.Length + Tls13RecordLayer.Overhead];
        Assert.Equal(record.Length, layer.Seal(plaintext, type, record));
        return record;
    }

    private static (TlsAlert Alert, byte Type, string Text) Open(Tls13RecordLayer layer, byte[] record)
    {
        byte[] plaintext = new byte[record.Length];
        TlsAlert alert = layer.Open(record, plaintext, out byte type, out int length);
        return (alert, type, Encoding.ASCII.GetString(plaintext, 0, length));
    }

    [Theory]
    [MemberData(nameof(Suites))]
    public void WhatOneSideSealsTheOtherOpensInOrder(ushort suite)
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(suite);
        using (server)
        using (client)
        {
            byte[] first = Seal(server, "first"u8);
            byte[] second = Seal(server, "second"u8);

            Assert.Equal((TlsAlert.None, Tls13RecordLayer.ApplicationData, "first"), Open(client, first));
            Assert.Equal((TlsAlert.None, Tls13RecordLayer.ApplicationData, "second"), Open(client, second));
            Assert.Equal((TlsAlert.None, Tls13RecordLayer.ApplicationData, "back"), Open(server, Seal(client, "back"u8)));
            // The header: application_data, legacy version 3.3, the length of what follows it (RFC 8446 §5.2).
            Assert.Equal(new byte[] { 23, 3, 3, 0, (byte)(5 + 1 + 16) }, first[..5]);
        }
    }

    [Theory]
    [InlineData((ushort)0x1301)]
    [InlineData((ushort)0x1302)]
    public void TheLoopsAesGcmAndOpenSslsReadEachOtherAtEverySize(ushort suite)
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(suite);
        using (server)
        using (client)
        {
            var random = new Random(suite);
            foreach (int size in Enumerable.Range(0, 200).Concat([1000, 4095, 8400, Tls13RecordLayer.MaxPlaintext]))
            {
                byte[] content = new byte[size];
                random.NextBytes(content);
                foreach ((Tls13RecordLayer from, Tls13RecordLayer to) in new[] { (server, client), (client, server) })
                {
                    byte[] record = Seal(from, content);
                    byte[] opened = new byte[record.Length];
                    Assert.Equal(TlsAlert.None, to.Open(record, opened, out byte type, out int length));
                    Assert.Equal(Tls13RecordLayer.ApplicationData, type);
                    Assert.True(content.AsSpan().SequenceEqual(opened.AsSpan(0, length)), $"{size} bytes");
                }
            }
        }
    }

    [Fact]
    public void ARecordOutOfOrderOrFromAnEarlierSequenceDoesNotAuthenticate()
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(0x1301, written: 2);
        using (server)
        using (client)
        {
            // The server had sent two records before (OpenSSL's tickets): its first here has sequence number 2.
            byte[] record = Seal(server, "x"u8);

            Assert.Equal(TlsAlert.BadRecordMac, Open(client, record).Alert);
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    [InlineData(6)]
    [InlineData(-1)]
    public void AChangedByteIsRefusedWithBadRecordMac(int index)
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(0x1301);
        using (server)
        using (client)
        {
            byte[] record = Seal(server, "payload"u8);
            record[index < 0 ? record.Length + index : index] ^= 1;

            // The header is the additional data, the body and tag are checked: any change fails (RFC 8446 §5.2).
            Assert.Equal(TlsAlert.BadRecordMac, Open(client, record).Alert);
        }
    }

    [Fact]
    public void PaddingIsTakenOffAndTheInnerTypeIsTheLastByteNotZero()
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(0x1303);
        using (server)
        using (client)
        {
            // Sealed as content "hi", type 21 and three zeros of padding, all under type 0.
            byte[] record = Seal(server, "hi\u0015\0\0\0"u8, type: 0);

            Assert.Equal((TlsAlert.None, Tls13RecordLayer.Alert, "hi"), Open(client, record));
        }
    }

    [Fact]
    public void ARecordOfZerosOnlyIsAnUnexpectedMessage()
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(0x1301);
        using (server)
        using (client)
        {
            Assert.Equal(TlsAlert.UnexpectedMessage, Open(client, Seal(server, new byte[3], type: 0)).Alert);
        }
    }

    [Fact]
    public void ContentPastTwoToTheFourteenIsARecordOverflow()
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(0x1301);
        using (server)
        using (client)
        {
            byte[] fits = Seal(server, new byte[Tls13RecordLayer.MaxPlaintext]);
            Assert.Equal(TlsAlert.None, Open(client, fits).Alert);

            // 2^14 + 1 bytes of content: the record's length is within 2^14 + 256, its content is not (RFC 8446 §5.4).
            byte[] over = Seal(server, new byte[Tls13RecordLayer.MaxPlaintext + 1]);
            Assert.Equal(TlsAlert.RecordOverflow, Open(client, over).Alert);

            // Ten bytes of content padded past 2^14 + 1: the padding counts against the limit too.
            byte[] padded = new byte[Tls13RecordLayer.MaxPlaintext + 2];
            padded.AsSpan(0, 10).Fill((byte)'x');
            padded[10] = Tls13RecordLayer.ApplicationData;
            Assert.Equal(TlsAlert.RecordOverflow, Open(client, Seal(server, padded, type: 0)).Alert);
        }
    }

    [Fact]
    public void ARecordTooShortForItsTagIsRefused()
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(0x1301);
        using (server)
        using (client)
        {
            Assert.Equal(TlsAlert.BadRecordMac, Open(client, [23, 3, 3, 0, 16, .. new byte[16]]).Alert);
        }
    }

    [Fact]
    public void AfterAKeyUpdateOnlyTheUpdatedPeerOpens()
    {
        (Tls13RecordLayer server, Tls13RecordLayer client) = Pair(0x1301);
        using (server)
        using (client)
        {
            server.UpdateWriteKey();
            byte[] record = Seal(server, "next"u8);

            Assert.Equal(TlsAlert.BadRecordMac, Open(client, record).Alert);
            (Tls13RecordLayer server2, Tls13RecordLayer client2) = Pair(0x1301);
            using (server2)
            using (client2)
            {
                server2.UpdateWriteKey();
                client2.UpdateReadKey();
                Assert.Equal((TlsAlert.None, Tls13RecordLayer.ApplicationData, "next"), Open(client2, Seal(server2, "next"u8)));
            }
        }
    }

    [Fact]
    public void ASuiteItDoesNotProtectOrASecretOfTheWrongLengthGivesNone()
    {
        Assert.Null(Tls13RecordLayer.Create(0x1304, s_clientSecret.AsSpan(0, 32), s_serverSecret.AsSpan(0, 32), 0));
        Assert.Null(Tls13RecordLayer.Create(0x1302, s_clientSecret.AsSpan(0, 32), s_serverSecret.AsSpan(0, 32), 0));
    }
}
