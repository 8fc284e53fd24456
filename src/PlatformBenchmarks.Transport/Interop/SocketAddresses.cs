using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace PlatformBenchmarks.Transport.Interop;

/// <summary>Conversions between <see cref="IPEndPoint"/> and the kernel's sockaddr_in / sockaddr_in6.</summary>
internal static class SocketAddresses
{
    public static Libc.SocketAddress From(IPEndPoint endPoint, out uint length)
    {
        Libc.SocketAddress address = default;
        address.Port = BinaryPrimitives.ReverseEndianness((ushort)endPoint.Port);
        Span<byte> rest = address.Rest;
        if (endPoint.AddressFamily == AddressFamily.InterNetwork)
        {
            address.Family = Libc.AF_INET;
            endPoint.Address.TryWriteBytes(rest[..4], out _);
            length = 16;
        }
        else
        {
            address.Family = Libc.AF_INET6;
            endPoint.Address.TryWriteBytes(rest.Slice(4, 16), out _);
            BinaryPrimitives.WriteUInt32LittleEndian(rest.Slice(20, 4), (uint)endPoint.Address.ScopeId);
            length = Libc.SocketAddress.Size;
        }

        return address;
    }

    public static IPEndPoint? ToEndPoint(in Libc.SocketAddress address)
    {
        ReadOnlySpan<byte> rest = address.Rest;
        int port = BinaryPrimitives.ReverseEndianness(address.Port);
        return address.Family switch
        {
            Libc.AF_INET => new IPEndPoint(new IPAddress(rest[..4]), port),
            Libc.AF_INET6 => new IPEndPoint(new IPAddress(rest.Slice(4, 16), BinaryPrimitives.ReadUInt32LittleEndian(rest.Slice(20, 4))), port),
            _ => null,
        };
    }
}
