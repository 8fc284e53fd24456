using System.Net.Sockets;

namespace PlatformBenchmarks.Transport.Tests.Support;

internal static class SocketExtensions
{
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    public static async Task SendAllAsync(this Socket socket, ReadOnlyMemory<byte> data)
    {
        while (!data.IsEmpty)
        {
            int sent = await socket.SendAsync(data).AsTask().WaitAsync(Patience);
            data = data[sent..];
        }
    }

    /// <summary>
    /// Sends one byte to a peer that has reset the connection, so that the reset reaches this side. The reset alone may
    /// never arrive: when bytes sent before it were dropped by a small receive buffer, its sequence number is in the
    /// window but not the next expected, and the client answers it with a challenge ACK that the kernel rate-limits
    /// (RFC 5961 §3.2), so it may be skipped. A byte sent now meets no socket on the server and is answered by a reset
    /// the client takes.
    /// </summary>
    public static async Task NudgeAsync(this Socket socket)
    {
        try
        {
            _ = await socket.SendAsync("x"u8.ToArray(), SocketFlags.None).WaitAsync(Patience);
        }
        catch (SocketException)
        {
            // The reset came first.
        }
    }

    /// <summary>Reads exactly <paramref name="count"/> bytes (fewer only if the peer ends the stream first).</summary>
    public static async Task<byte[]> ReceiveExactlyAsync(this Socket socket, int count)
    {
        byte[] buffer = new byte[count];
        int filled = 0;
        while (filled < count)
        {
            int received = await socket.ReceiveAsync(buffer.AsMemory(filled)).AsTask().WaitAsync(Patience);
            if (received == 0)
            {
                return buffer[..filled];
            }

            filled += received;
        }

        return buffer;
    }

    /// <summary>Reads until the peer's FIN; returns what came before it. A reset throws.</summary>
    public static async Task<byte[]> ReceiveToEndAsync(this Socket socket)
    {
        var all = new MemoryStream();
        byte[] buffer = new byte[64 * 1024];
        while (true)
        {
            int received = await socket.ReceiveAsync(buffer.AsMemory()).AsTask().WaitAsync(Patience);
            if (received == 0)
            {
                return all.ToArray();
            }

            all.Write(buffer.AsSpan(0, received));
        }
    }

    public static byte[] Pattern(int length, int seed = 0)
    {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++)
        {
            data[i] = (byte)((i * 31) + seed + (i >> 8));
        }

        return data;
    }
}
