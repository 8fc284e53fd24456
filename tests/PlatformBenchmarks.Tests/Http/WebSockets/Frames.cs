using System.Buffers.Binary;
using System.Text;

namespace PlatformBenchmarks.Tests.Http.WebSockets;

/// <summary>WebSocket frames as a client writes them (RFC 6455 §5.2), any of their bits set by hand, and as a server's are read.</summary>
internal static class Frames
{
    public const byte Continuation = 0x0;
    public const byte Text = 0x1;
    public const byte Binary = 0x2;
    public const byte Close = 0x8;
    public const byte Ping = 0x9;
    public const byte Pong = 0xA;

    /// <summary>The handshake of RFC 6455 §1.3, whose key's accept value the RFC gives.</summary>
    public const string SampleKey = "dGhlIHNhbXBsZSBub25jZQ==";

    public const string SampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

    public static string Handshake(string path = "/ws", string key = SampleKey) =>
        $"GET {path} HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n";

    /// <summary>
    /// One frame: <paramref name="lengthForm"/> forces the 7-bit (0), 16-bit (126) or 64-bit (127) length encoding
    /// (-1: the shortest); <paramref name="mask"/> null sends it unmasked.
    /// </summary>
    public static byte[] Frame(byte opcode, byte[] payload, bool fin = true, byte rsv = 0, byte[]? mask = null, bool masked = true, int lengthForm = -1, ulong? declaredLength = null)
    {
        mask ??= [0x37, 0xFA, 0x21, 0x3D];
        ulong length = declaredLength ?? (ulong)payload.Length;
        int form = lengthForm >= 0 ? lengthForm : length < 126 ? 0 : length <= ushort.MaxValue ? 126 : 127;
        var frame = new List<byte> { (byte)((fin ? 0x80 : 0) | (rsv << 4) | opcode) };
        byte maskBit = masked ? (byte)0x80 : (byte)0;
        if (form == 0)
        {
            frame.Add((byte)(maskBit | (byte)length));
        }
        else if (form == 126)
        {
            frame.Add((byte)(maskBit | 126));
            frame.AddRange(BigEndian((ushort)length));
        }
        else
        {
            frame.Add((byte)(maskBit | 127));
            byte[] wide = new byte[8];
            BinaryPrimitives.WriteUInt64BigEndian(wide, length);
            frame.AddRange(wide);
        }

        if (masked)
        {
            frame.AddRange(mask);
        }

        for (int i = 0; i < payload.Length; i++)
        {
            frame.Add(masked ? (byte)(payload[i] ^ mask[i % 4]) : payload[i]);
        }

        return [.. frame];
    }

    public static byte[] TextFrame(string text, bool fin = true) => Frame(Text, Encoding.UTF8.GetBytes(text), fin);

    public static byte[] CloseFrame(ushort code, string reason = "") => Frame(Close, [.. BigEndian(code), .. Encoding.UTF8.GetBytes(reason)]);

    public static byte[] BigEndian(ushort value) => [(byte)(value >> 8), (byte)value];

    public static byte[] Concat(params byte[][] parts) => [.. parts.SelectMany(p => p)];

    /// <summary>Reads the 101 (or any head without a body) up to its empty line.</summary>
    public static async Task<string> ReadHeadAsync(Stream stream)
    {
        var head = new List<byte>();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        byte[] one = new byte[1];
        while (head.Count < 4 || head[^4] != '\r' || head[^3] != '\n' || head[^2] != '\r' || head[^1] != '\n')
        {
            if (await stream.ReadAsync(one, timeout.Token) == 0)
            {
                throw new EndOfStreamException($"The stream ended inside a head: {Encoding.Latin1.GetString([.. head])}");
            }

            head.Add(one[0]);
        }

        return Encoding.Latin1.GetString([.. head]);
    }

    /// <summary>Reads one server frame; null at the end of the stream. A server's frames are never masked (§5.1).</summary>
    public static async Task<ServerFrame?> ReadFrameAsync(Stream stream)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        byte[] head = new byte[2];
        if (!await ReadExactlyAsync(stream, head, timeout.Token))
        {
            return null;
        }

        Assert.Equal(0, head[1] & 0x80);
        ulong length = (ulong)(head[1] & 0x7F);
        if (length >= 126)
        {
            byte[] extended = new byte[length == 126 ? 2 : 8];
            Assert.True(await ReadExactlyAsync(stream, extended, timeout.Token));
            length = extended.Length == 2 ? BinaryPrimitives.ReadUInt16BigEndian(extended) : BinaryPrimitives.ReadUInt64BigEndian(extended);
        }

        byte[] payload = new byte[length];
        Assert.True(await ReadExactlyAsync(stream, payload, timeout.Token));
        return new ServerFrame((head[0] & 0x80) != 0, (byte)(head[0] & 0x0F), payload);
    }

    private static async Task<bool> ReadExactlyAsync(Stream stream, byte[] buffer, CancellationToken cancellationToken)
    {
        int read = 0;
        while (read < buffer.Length)
        {
            int n = await stream.ReadAsync(buffer.AsMemory(read), cancellationToken);
            if (n == 0)
            {
                return read == 0 && buffer.Length > 0 ? false : throw new EndOfStreamException("The stream ended inside a frame.");
            }

            read += n;
        }

        return true;
    }
}

/// <summary>A frame the server sent.</summary>
internal sealed record ServerFrame(bool Fin, byte Opcode, byte[] Payload)
{
    public string Text => Encoding.UTF8.GetString(Payload);

    /// <summary>A close frame's status code; 1005 when it carries none.</summary>
    public int CloseCode => Payload.Length >= 2 ? BinaryPrimitives.ReadUInt16BigEndian(Payload) : 1005;
}
