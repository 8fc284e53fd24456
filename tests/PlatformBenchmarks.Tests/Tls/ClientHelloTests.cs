using System.Buffers;
using System.Net.Security;
using PlatformBenchmarks.Http.Tls;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// The ALPN list read ahead of the handshake, from real ClientHellos (written by <see cref="SslStream"/> as a client),
/// and from every truncation and corruption of one: never an exception, never a protocol that was not offered.
/// </summary>
public class ClientHelloTests
{
    private static readonly ReadOnlyMemory<byte>[] Served = [SslApplicationProtocol.Http11.Protocol];

    [Theory]
    [InlineData(nameof(AlpnOffer.Includes), "http/1.1")]
    [InlineData(nameof(AlpnOffer.Includes), "h2", "http/1.1")]
    [InlineData(nameof(AlpnOffer.Excludes), "h2")]
    [InlineData(nameof(AlpnOffer.Excludes), "http/1.0", "spdy/3", "h2c")]
    [InlineData(nameof(AlpnOffer.None))]
    public async Task TheAlpnListOfARealClientHelloIsRead(string expected, params string[] protocols)
    {
        byte[] hello = await ClientHelloOfferingAsync(protocols);

        Assert.Equal(hello.Length, ClientHello.FirstRecordSize(new ReadOnlySequence<byte>(hello)));
        Assert.Equal(Enum.Parse<AlpnOffer>(expected), ClientHello.ReadAlpn(new ReadOnlySequence<byte>(hello), Served));
    }

    [Fact]
    public async Task AClientHelloSplitOverSegmentsReadsTheSame()
    {
        byte[] hello = await ClientHelloOfferingAsync("h2", "http/1.1");

        for (int split = 1; split < hello.Length; split += 37)
        {
            ReadOnlySequence<byte> sequence = Support.Sequences.Split(hello, split);
            Assert.Equal(AlpnOffer.Includes, ClientHello.ReadAlpn(sequence, Served));
        }
    }

    [Fact]
    public async Task EveryPrefixOfTheRecordWaitsForTheRestOrIsLeftToTheLibrary()
    {
        byte[] hello = await ClientHelloOfferingAsync("h2");

        for (int length = 0; length < hello.Length; length++)
        {
            int size = ClientHello.FirstRecordSize(new ReadOnlySequence<byte>(hello, 0, length));
            Assert.Equal(length < ClientHello.RecordHeaderSize ? -1 : hello.Length, size);
        }
    }

    [Fact]
    public async Task AClientHelloCutShortInsideItsRecordIsNeverReadAsAnOffer()
    {
        byte[] hello = await ClientHelloOfferingAsync("h2");

        // The record's length says it ends early: the message inside is cut at every point.
        for (int length = ClientHello.RecordHeaderSize; length < hello.Length; length++)
        {
            byte[] cut = hello[..length];
            cut[3] = (byte)((length - ClientHello.RecordHeaderSize) >> 8);
            cut[4] = (byte)(length - ClientHello.RecordHeaderSize);
            Assert.Equal(AlpnOffer.Unknown, ClientHello.ReadAlpn(new ReadOnlySequence<byte>(cut), Served));
        }
    }

    [Fact]
    public async Task EveryByteOfTheClientHelloCorruptedNeverThrowsAndNeverInventsHttp11()
    {
        byte[] hello = await ClientHelloOfferingAsync("h2");

        for (int index = 0; index < hello.Length; index++)
        {
            foreach (byte value in new byte[] { 0x00, 0xff, (byte)(hello[index] + 1) })
            {
                byte[] corrupted = (byte[])hello.Clone();
                corrupted[index] = value;
                AlpnOffer offer = ClientHello.ReadAlpn(new ReadOnlySequence<byte>(corrupted), Served);
                Assert.NotEqual(AlpnOffer.Includes, offer);
            }
        }
    }

    [Theory]
    [InlineData(new byte[] { 0x17, 0x03, 0x03, 0x00, 0x10 })]
    [InlineData(new byte[] { 0x16, 0x03, 0x01, 0x00, 0x00 })]
    [InlineData(new byte[] { 0x16, 0x03, 0x01, 0x40, 0x01 })]
    [InlineData(new byte[] { (byte)'G', (byte)'E', (byte)'T', (byte)' ', (byte)'/' })]
    public void ARecordThatCannotHoldAClientHelloIsLeftToTheLibrary(byte[] header)
    {
        Assert.Equal(0, ClientHello.FirstRecordSize(new ReadOnlySequence<byte>(header)));
    }

    /// <summary>The first record a TLS client sends: its ClientHello, offering <paramref name="protocols"/> in ALPN.</summary>
    internal static async Task<byte[]> ClientHelloOfferingAsync(params string[] protocols)
    {
        var capture = new FirstWrite();
        await using var client = new SslStream(capture);
        var options = new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            ApplicationProtocols = protocols.Length == 0 ? null : [.. protocols.Select(protocol => new SslApplicationProtocol(protocol))],
        };
        await Assert.ThrowsAnyAsync<Exception>(() => client.AuthenticateAsClientAsync(options));
        return capture.Written!;
    }

    /// <summary>Keeps the first write and ends the stream: the client's handshake stops after its ClientHello.</summary>
    private sealed class FirstWrite : Stream
    {
        public byte[]? Written { get; private set; }

        public override bool CanRead => true;

        public override bool CanWrite => true;

        public override bool CanSeek => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            Written ??= buffer.ToArray();
            return ValueTask.CompletedTask;
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => ValueTask.FromResult(0);

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => Task.FromResult(0);

        public override Task FlushAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();
    }
}
