using System.Buffers;
using PlatformBenchmarks.Http.Http2;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>The frames the server writes, byte for byte, and as the reader reads them back.</summary>
public class Http2FrameWriterTests
{
    [Fact]
    public void SettingsAreWrittenAsRfc9113Lays()
    {
        byte[] destination = new byte[64];
        int written = Http2FrameWriter.WriteSettings(destination, [(Http2SettingsParameter.MaxConcurrentStreams, 100), (Http2SettingsParameter.InitialWindowSize, 1u << 20)]);

        Assert.Equal(Hpack.Hex("00000c 04 00 00000000 0003 00000064 0004 00100000"), destination[..written]);
        Assert.Equal("Settings flags=00 stream=0 content=000300000064000400100000", Http2FrameReaderTests.Read(new ReadOnlySequence<byte>(destination, 0, written), written));
    }

    [Theory]
    [InlineData("ack", "000000 04 01 00000000", "Settings flags=01 stream=0 content=")]
    [InlineData("ping", "000008 06 00 00000000 0102030405060708", "Ping flags=00 stream=0 content=0102030405060708 ping=0102030405060708")]
    [InlineData("ping ack", "000008 06 01 00000000 0102030405060708", "Ping flags=01 stream=0 content=0102030405060708 ping=0102030405060708")]
    [InlineData("window", "000004 08 00 00000003 7fffffff", "WindowUpdate flags=00 stream=3 content=7FFFFFFF increment=2147483647")]
    [InlineData("reset", "000004 03 00 00000005 00000007", "RstStream flags=00 stream=5 content=00000007 code=RefusedStream")]
    [InlineData("goaway", "00000b 07 00 00000000 00000009 00000001 627567", "GoAway flags=00 stream=0 content=627567 last=9 code=ProtocolError")]
    [InlineData("headers", "000002 01 05 00000001", null)]
    public void EachFrameIsWrittenWhole(string frame, string expected, string? read)
    {
        byte[] destination = new byte[64];
        int written = frame switch
        {
            "ack" => Http2FrameWriter.WriteSettingsAck(destination),
            "ping" => Http2FrameWriter.WritePing(destination, 0x0102030405060708, ack: false),
            "ping ack" => Http2FrameWriter.WritePing(destination, 0x0102030405060708, ack: true),
            "window" => Http2FrameWriter.WriteWindowUpdate(destination, 3, int.MaxValue),
            "reset" => Http2FrameWriter.WriteRstStream(destination, 5, Http2ErrorCode.RefusedStream),
            "goaway" => Http2FrameWriter.WriteGoAway(destination, 9, Http2ErrorCode.ProtocolError, "bug"u8),
            _ => Http2FrameWriter.WriteHeader(destination, 2, Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, 1),
        };

        Assert.Equal(Hpack.Hex(expected), destination[..written]);
        if (read is not null)
        {
            Assert.Equal(read.Replace(" ", "", StringComparison.Ordinal), Http2FrameReaderTests.Read(new ReadOnlySequence<byte>(destination, 0, written), written).Replace(" ", "", StringComparison.Ordinal));
        }
    }

    [Fact]
    public void AWindowUpdateOfZeroIsNeverWritten()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Http2FrameWriter.WriteWindowUpdate(new byte[16], 1, 0));
    }
}
