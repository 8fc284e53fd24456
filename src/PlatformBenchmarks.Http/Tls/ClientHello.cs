using System.Buffers;
using System.Buffers.Binary;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>What a ClientHello's ALPN extension (RFC 7301 §3.1) says of the protocols this server speaks.</summary>
internal enum AlpnOffer : byte
{
    /// <summary>Not read: not a ClientHello in one record, or malformed. The TLS library reads it and judges.</summary>
    Unknown,

    /// <summary>No ALPN extension: the client speaks HTTP/1.1 (RFC 9112 over TLS, as before ALPN).</summary>
    None,

    /// <summary>The list names a protocol this server speaks.</summary>
    Includes,

    /// <summary>The list names none of them (a client offering only h2, say).</summary>
    Excludes,
}

/// <summary>
/// Reads the ALPN list of a ClientHello before the handshake, from the first TLS record, without consuming it. OpenSSL
/// answers a list without an overlap with a fatal no_application_protocol alert (RFC 7301 §3.2's SHOULD); this server
/// serves HTTP/1.1 to such a client instead, by handshaking it without ALPN.
/// </summary>
internal static class ClientHello
{
    /// <summary>A TLS record's header: content type, legacy version, length (RFC 8446 §5.1).</summary>
    public const int RecordHeaderSize = 5;

    private const byte HandshakeRecord = 22;
    private const byte ClientHelloMessage = 1;
    private const ushort AlpnExtension = 16;

    /// <summary>The largest record a ClientHello may come in (RFC 8446 §5.1: 2^14 bytes of plaintext).</summary>
    private const int MaxRecordSize = 16 * 1024;

    /// <summary>
    /// How many bytes the first record of <paramref name="received"/> takes, header included: -1 while its header has
    /// not arrived, 0 when it is no handshake record a ClientHello could be read from.
    /// </summary>
    public static int FirstRecordSize(ReadOnlySequence<byte> received)
    {
        if (received.Length < RecordHeaderSize)
        {
            return -1;
        }

        Span<byte> header = stackalloc byte[RecordHeaderSize];
        received.Slice(0, RecordHeaderSize).CopyTo(header);
        int length = BinaryPrimitives.ReadUInt16BigEndian(header[3..]);
        return header[0] == HandshakeRecord && length is > 0 and <= MaxRecordSize ? RecordHeaderSize + length : 0;
    }

    /// <summary>What the ClientHello in <paramref name="record"/> (a whole first record) offers of <paramref name="protocols"/>.</summary>
    public static AlpnOffer ReadAlpn(ReadOnlySequence<byte> record, IReadOnlyList<ReadOnlyMemory<byte>> protocols)
    {
        if (record.IsSingleSegment)
        {
            return ReadAlpn(record.FirstSpan[RecordHeaderSize..], protocols);
        }

        byte[] copy = ArrayPool<byte>.Shared.Rent((int)record.Length);
        try
        {
            record.CopyTo(copy);
            return ReadAlpn(copy.AsSpan(RecordHeaderSize, (int)record.Length - RecordHeaderSize), protocols);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(copy);
        }
    }

    /// <summary>RFC 8446 §4.1.2's ClientHello, read as far as its extensions; any field past the record is <see cref="AlpnOffer.Unknown"/>.</summary>
    private static AlpnOffer ReadAlpn(ReadOnlySpan<byte> handshake, IReadOnlyList<ReadOnlyMemory<byte>> protocols)
    {
        if (handshake.Length < 4 || handshake[0] != ClientHelloMessage)
        {
            return AlpnOffer.Unknown;
        }

        int length = (handshake[1] << 16) | (handshake[2] << 8) | handshake[3];
        if (length > handshake.Length - 4)
        {
            // Split over several records: rare (a ClientHello is far below 16 KiB), and the library reads it whole.
            return AlpnOffer.Unknown;
        }

        var hello = new Reader(handshake.Slice(4, length));
        // legacy_version, random, legacy_session_id, cipher_suites, legacy_compression_methods.
        if (!hello.Skip(2 + 32) || !hello.SkipVector(1) || !hello.SkipVector(2) || !hello.SkipVector(1))
        {
            return AlpnOffer.Unknown;
        }

        if (hello.Remaining == 0)
        {
            return AlpnOffer.None;
        }

        if (!hello.Vector(2, out ReadOnlySpan<byte> extensions))
        {
            return AlpnOffer.Unknown;
        }

        var list = new Reader(extensions);
        while (list.Remaining > 0)
        {
            if (!list.UInt16(out ushort type) || !list.Vector(2, out ReadOnlySpan<byte> data))
            {
                return AlpnOffer.Unknown;
            }

            if (type == AlpnExtension)
            {
                return ReadProtocolList(data, protocols);
            }
        }

        return AlpnOffer.None;
    }

    private static AlpnOffer ReadProtocolList(ReadOnlySpan<byte> data, IReadOnlyList<ReadOnlyMemory<byte>> protocols)
    {
        var extension = new Reader(data);
        if (!extension.Vector(2, out ReadOnlySpan<byte> names) || extension.Remaining != 0)
        {
            return AlpnOffer.Unknown;
        }

        var reader = new Reader(names);
        while (reader.Remaining > 0)
        {
            if (!reader.Vector(1, out ReadOnlySpan<byte> name))
            {
                return AlpnOffer.Unknown;
            }

            foreach (ReadOnlyMemory<byte> protocol in protocols)
            {
                if (name.SequenceEqual(protocol.Span))
                {
                    return AlpnOffer.Includes;
                }
            }
        }

        return AlpnOffer.Excludes;
    }

    /// <summary>Big-endian fields and length-prefixed vectors (RFC 8446 §3.4), every read checked against the end.</summary>
    private ref struct Reader(ReadOnlySpan<byte> data)
    {
        private ReadOnlySpan<byte> _data = data;

        public readonly int Remaining => _data.Length;

        public bool Skip(int count)
        {
            if (count > _data.Length)
            {
                return false;
            }

            _data = _data[count..];
            return true;
        }

        public bool UInt16(out ushort value)
        {
            value = 0;
            if (_data.Length < 2)
            {
                return false;
            }

            value = BinaryPrimitives.ReadUInt16BigEndian(_data);
            _data = _data[2..];
            return true;
        }

        public bool SkipVector(int lengthSize) => Vector(lengthSize, out _);

        public bool Vector(int lengthSize, out ReadOnlySpan<byte> vector)
        {
            vector = default;
            if (_data.Length < lengthSize)
            {
                return false;
            }

            int length = lengthSize == 1 ? _data[0] : BinaryPrimitives.ReadUInt16BigEndian(_data);
            if (length > _data.Length - lengthSize)
            {
                return false;
            }

            vector = _data.Slice(lengthSize, length);
            _data = _data[(lengthSize + length)..];
            return true;
        }
    }
}
