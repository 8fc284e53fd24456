using System.Buffers;
using System.Text;
using PlatformBenchmarks.Http.Http2;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// A table of raw frames, valid and invalid, each with its outcome (what the frame holds, or its error code and whether
/// it ends the connection or the stream), read whole, split at every byte, and cut short at every byte.
/// </summary>
public class Http2FrameReaderTests
{
    private const int MaxFrameSize = Http2Frame.DefaultMaxFrameSize;

    /// <summary>A frame from its header's fields and its payload in hex; <paramref name="length"/> overrides the payload's.</summary>
    private static string Frame(int type, int flags, uint stream, string payload = "", int? length = null)
    {
        int payloadLength = length ?? Hpack.Hex(payload).Length;
        return $"{payloadLength:x6}{type:x2}{flags:x2}{stream:x8}{payload.Replace(" ", "", StringComparison.Ordinal)}";
    }

    public static TheoryData<string, string, string> Frames() => new()
    {
        // Valid frames, with what the reader makes of them.
        { "DATA", Frame(0, 1, 1, "68656c6c6f"), "Data flags=01 stream=1 content=68656C6C6F" },
        { "DATA, empty", Frame(0, 0, 1), "Data flags=00 stream=1 content=" },
        { "DATA padded", Frame(0, 8, 1, "02 6869 0000"), "Data flags=08 stream=1 content=6869" },
        { "DATA padded, all padding", Frame(0, 8, 1, "02 0000"), "Data flags=08 stream=1 content=" },
        { "DATA padded, padding not zeros (not checked, §6.1)", Frame(0, 8, 1, "02 6869"), "Data flags=08 stream=1 content=" },
        { "DATA at SETTINGS_MAX_FRAME_SIZE", Frame(0, 0, 1, new string('0', 2 * MaxFrameSize)), $"Data flags=00 stream=1 content={new string('0', 2 * MaxFrameSize)}" },
        { "DATA, the stream's reserved bit set", Frame(0, 0, 0x8000_0003, "01"), "Data flags=00 stream=3 content=01" },
        { "HEADERS", Frame(1, 5, 1, "8286"), "Headers flags=05 stream=1 content=8286" },
        { "HEADERS padded with priority", Frame(1, 0x2c, 5, "03 80000003 10 8286 000000"), "Headers flags=2C stream=5 content=8286 dependency=3" },
        { "HEADERS with priority", Frame(1, 0x24, 5, "00000000 ff 82"), "Headers flags=24 stream=5 content=82" },
        { "HEADERS, unknown flags", Frame(1, 0xd2, 1, "82"), "Headers flags=D2 stream=1 content=82" },
        { "PRIORITY", Frame(2, 0, 3, "00000001 10"), "Priority flags=00 stream=3 content=0000000110 dependency=1" },
        { "RST_STREAM", Frame(3, 0, 1, "00000008"), "RstStream flags=00 stream=1 content=00000008 code=Cancel" },
        { "SETTINGS", Frame(4, 0, 0, "0003 00000064 0004 0000ffff"), "Settings flags=00 stream=0 content=000300000064000400 00FFFF" },
        { "SETTINGS, unknown setting", Frame(4, 0, 0, "00ff 00000001"), "Settings flags=00 stream=0 content=00FF00000001" },
        { "SETTINGS, the limits' edges", Frame(4, 0, 0, "0002 00000001 0004 7fffffff 0005 00004000 0005 00ffffff"), "Settings flags=00 stream=0 content=0002000000010004 7FFFFFFF0005000040000005 00FFFFFF" },
        { "SETTINGS ACK", Frame(4, 1, 0), "Settings flags=01 stream=0 content=" },
        { "PING", Frame(6, 0, 0, "0102030405060708"), "Ping flags=00 stream=0 content=0102030405060708 ping=0102030405060708" },
        { "PING ACK", Frame(6, 1, 0, "0000000000000001"), "Ping flags=01 stream=0 content=0000000000000001 ping=0000000000000001" },
        { "GOAWAY", Frame(7, 0, 0, "00000005 00000000 627965"), "GoAway flags=00 stream=0 content=627965 last=5 code=NoError" },
        { "GOAWAY, the reserved bit", Frame(7, 0, 0, "80000007 0000000b"), "GoAway flags=00 stream=0 content= last=7 code=EnhanceYourCalm" },
        { "WINDOW_UPDATE, connection", Frame(8, 0, 0, "000003e8"), "WindowUpdate flags=00 stream=0 content=000003E8 increment=1000" },
        { "WINDOW_UPDATE, stream, the reserved bit", Frame(8, 0, 1, "80000010"), "WindowUpdate flags=00 stream=1 content=80000010 increment=16" },
        { "WINDOW_UPDATE, the largest", Frame(8, 0, 1, "7fffffff"), "WindowUpdate flags=00 stream=1 content=7FFFFFFF increment=2147483647" },
        { "CONTINUATION", Frame(9, 4, 1, "86"), "Continuation flags=04 stream=1 content=86" },
        { "an extension frame, ignored", Frame(0x0a, 0xff, 0, "abcdef"), "10 flags=FF stream=0 content=ABCDEF" },
        { "an extension frame on a stream", Frame(0xfe, 0, 7), "254 flags=00 stream=7 content=" },

        // Invalid frames, each with its error and its scope.
        { "DATA over SETTINGS_MAX_FRAME_SIZE", Frame(0, 0, 1, new string('0', 2 * (MaxFrameSize + 1))), "connection FrameSizeError" },
        { "DATA on stream 0", Frame(0, 0, 0, "01"), "connection ProtocolError" },
        { "DATA padded, no pad length", Frame(0, 8, 1), "connection FrameSizeError" },
        { "DATA, padding as long as the payload", Frame(0, 8, 1, "03 6869"), "connection ProtocolError" },
        { "DATA, padding longer than the payload", Frame(0, 8, 1, "ff 6869"), "connection ProtocolError" },
        { "HEADERS on stream 0", Frame(1, 4, 0, "82"), "connection ProtocolError" },
        { "HEADERS, priority cut short", Frame(1, 0x24, 1, "00000000"), "connection FrameSizeError" },
        { "HEADERS padded with priority, too short", Frame(1, 0x2c, 1, "00 00000000"), "connection FrameSizeError" },
        { "HEADERS, padding past the end", Frame(1, 0x2c, 1, "02 00000000 10 82"), "connection ProtocolError" },
        { "HEADERS depending on itself", Frame(1, 0x24, 3, "00000003 10 82"), "stream ProtocolError" },
        { "PRIORITY on stream 0", Frame(2, 0, 0, "00000001 10"), "connection ProtocolError" },
        { "PRIORITY of 4 bytes", Frame(2, 0, 1, "00000003"), "stream FrameSizeError" },
        { "PRIORITY of 6 bytes", Frame(2, 0, 1, "00000003 1000"), "stream FrameSizeError" },
        { "PRIORITY depending on itself", Frame(2, 0, 1, "80000001 10"), "stream ProtocolError" },
        { "RST_STREAM on stream 0", Frame(3, 0, 0, "00000008"), "connection ProtocolError" },
        { "RST_STREAM of 3 bytes", Frame(3, 0, 1, "000008"), "connection FrameSizeError" },
        { "RST_STREAM of 5 bytes", Frame(3, 0, 1, "0000000800"), "connection FrameSizeError" },
        { "SETTINGS on a stream", Frame(4, 0, 1, "0003 00000064"), "connection ProtocolError" },
        { "SETTINGS ACK with a payload", Frame(4, 1, 0, "0003 00000064"), "connection FrameSizeError" },
        { "SETTINGS of 5 bytes", Frame(4, 0, 0, "0003 000000"), "connection FrameSizeError" },
        { "SETTINGS_ENABLE_PUSH 2", Frame(4, 0, 0, "0002 00000002"), "connection ProtocolError" },
        { "SETTINGS_INITIAL_WINDOW_SIZE 2^31", Frame(4, 0, 0, "0004 80000000"), "connection FlowControlError" },
        { "SETTINGS_MAX_FRAME_SIZE 2^14-1", Frame(4, 0, 0, "0005 00003fff"), "connection ProtocolError" },
        { "SETTINGS_MAX_FRAME_SIZE 2^24", Frame(4, 0, 0, "0003 00000001 0005 01000000"), "connection ProtocolError" },
        { "PUSH_PROMISE from a client", Frame(5, 4, 1, "00000002 82"), "connection ProtocolError" },
        { "PING on a stream", Frame(6, 0, 1, "0102030405060708"), "connection ProtocolError" },
        { "PING of 7 bytes", Frame(6, 0, 0, "01020304050607"), "connection FrameSizeError" },
        { "PING of 9 bytes", Frame(6, 0, 0, "010203040506070809"), "connection FrameSizeError" },
        { "GOAWAY on a stream", Frame(7, 0, 1, "00000000 00000000"), "connection ProtocolError" },
        { "GOAWAY of 7 bytes", Frame(7, 0, 0, "00000000 000000"), "connection FrameSizeError" },
        { "WINDOW_UPDATE of 3 bytes", Frame(8, 0, 1, "000001"), "connection FrameSizeError" },
        { "WINDOW_UPDATE of 5 bytes", Frame(8, 0, 0, "0000000100"), "connection FrameSizeError" },
        { "WINDOW_UPDATE of 0, connection", Frame(8, 0, 0, "00000000"), "connection ProtocolError" },
        { "WINDOW_UPDATE of 0, stream", Frame(8, 0, 1, "00000000"), "stream ProtocolError" },
        { "WINDOW_UPDATE of the reserved bit alone", Frame(8, 0, 1, "80000000"), "stream ProtocolError" },
        { "CONTINUATION on stream 0", Frame(9, 4, 0, "86"), "connection ProtocolError" },
        { "an extension frame over the limit", Frame(0x0a, 0, 0, "", length: MaxFrameSize + 1), "connection FrameSizeError" },
    };

    [Theory]
    [MemberData(nameof(Frames))]
    public void AFrameHasItsOutcome(string name, string hex, string outcome)
    {
        byte[] bytes = Hpack.Hex(hex);
        Assert.True(outcome.Replace(" ", "", StringComparison.Ordinal) == Read(new ReadOnlySequence<byte>(bytes), bytes.Length).Replace(" ", "", StringComparison.Ordinal), name);
    }

    [Theory]
    [MemberData(nameof(Frames))]
    public void AFrameHasTheSameOutcomeSplitAtEveryByte(string name, string hex, string outcome)
    {
        // Followed by the start of another frame, which must not be read with it.
        byte[] bytes = [.. Hpack.Hex(hex), .. Hpack.Hex(Frame(6, 0, 0, "0102030405060708"))];
        int frameLength = bytes.Length - 17;
        string expected = outcome.Replace(" ", "", StringComparison.Ordinal);
        for (int cut = 1; cut < Math.Min(bytes.Length, 64); cut++)
        {
            Assert.True(expected == Read(Sequences.Split(bytes, cut), frameLength).Replace(" ", "", StringComparison.Ordinal), $"{name}, cut at {cut}");
        }

        for (int cut = Math.Max(1, bytes.Length - 64); cut < bytes.Length; cut++)
        {
            Assert.True(expected == Read(Sequences.Split(bytes, cut), frameLength).Replace(" ", "", StringComparison.Ordinal), $"{name}, cut at {cut}");
        }
    }

    [Theory]
    [MemberData(nameof(Frames))]
    public void AFrameCutShortWaitsForTheRestUnlessItsHeaderAlreadyEndsTheConnection(string name, string hex, string outcome)
    {
        byte[] bytes = Hpack.Hex(hex);
        int frameLength = bytes.Length;
        foreach (int length in Enumerable.Range(0, Math.Min(frameLength, 40)).Concat(Enumerable.Range(Math.Max(0, frameLength - 40), Math.Min(frameLength, 40))))
        {
            string result = Read(new ReadOnlySequence<byte>(bytes, 0, length), frameLength);
            bool headerError = length >= Http2Frame.HeaderLength && outcome.StartsWith("connection", StringComparison.Ordinal) && result == outcome;
            Assert.True(result == "incomplete" || headerError, $"{name}, {length} bytes: {result}");
        }
    }

    [Fact]
    public void AFrameOverTheLimitIsRefusedFromItsHeaderAlone()
    {
        // A 16 MB DATA frame's header: nothing of its payload needs to arrive, or be kept.
        byte[] header = Hpack.Hex(Frame(0, 0, 1, "", length: Http2Frame.MaxAllowedFrameSize));

        Assert.Equal("connection FrameSizeError", Read(new ReadOnlySequence<byte>(header), header.Length));
    }

    [Fact]
    public void ALargerLimitAdmitsALargerFrame()
    {
        byte[] bytes = Hpack.Hex(Frame(0, 0, 1, new string('a', 2 * 20_000)));
        Http2ReadStatus status = Http2FrameReader.TryReadFrame(new ReadOnlySequence<byte>(bytes), 20_000, out Http2Frame frame, out ReadOnlySequence<byte> content, out _);

        Assert.Equal(Http2ReadStatus.Complete, status);
        Assert.Equal(20_000, content.Length);
        Assert.Equal(20_009, frame.TotalLength);
    }

    [Fact]
    public void SettingsEntriesAreReadWhereverTheyAreSplit()
    {
        byte[] bytes = Hpack.Hex("0003 00000064 0004 0000ffff 00ff 00000001");
        for (int cut = 0; cut < bytes.Length; cut++)
        {
            var reader = new Http2FrameReader.SettingsReader(cut == 0 ? new ReadOnlySequence<byte>(bytes) : Sequences.Split(bytes, cut));
            var settings = new List<(Http2SettingsParameter, uint)>();
            while (reader.TryRead(out Http2SettingsParameter parameter, out uint value))
            {
                settings.Add((parameter, value));
            }

            Assert.Equal([(Http2SettingsParameter.MaxConcurrentStreams, 100u), (Http2SettingsParameter.InitialWindowSize, 65535u), ((Http2SettingsParameter)0xff, 1u)], settings);
        }
    }

    /// <summary>The reader's outcome as text; a complete frame must have taken exactly <paramref name="frameLength"/> bytes.</summary>
    internal static string Read(in ReadOnlySequence<byte> buffer, int frameLength)
    {
        Http2ReadStatus status = Http2FrameReader.TryReadFrame(buffer, MaxFrameSize, out Http2Frame frame, out ReadOnlySequence<byte> content, out Http2FrameError error);
        switch (status)
        {
            case Http2ReadStatus.Incomplete:
                return "incomplete";
            case Http2ReadStatus.Error:
                Assert.False(string.IsNullOrEmpty(error.Reason));
                if (!error.IsConnectionError)
                {
                    // A stream error comes with the whole frame, so the connection can consume it and go on.
                    Assert.Equal(frameLength, frame.TotalLength);
                }

                return $"{(error.IsConnectionError ? "connection" : "stream")} {error.Code}";
        }

        Assert.Equal(frameLength, frame.TotalLength);
        var text = new StringBuilder($"{frame.Type} flags={frame.Flags:X2} stream={frame.StreamId} content={Convert.ToHexString(content.ToArray())}");
        if (frame.StreamDependency != 0)
        {
            text.Append($" dependency={frame.StreamDependency}");
        }

        if (frame.Type == Http2FrameType.GoAway)
        {
            text.Append($" last={frame.LastStreamId}");
        }

        if (frame.Type is Http2FrameType.RstStream or Http2FrameType.GoAway)
        {
            text.Append($" code={frame.ErrorCode}");
        }

        if (frame.Type == Http2FrameType.WindowUpdate)
        {
            text.Append($" increment={frame.WindowIncrement}");
        }

        if (frame.Type == Http2FrameType.Ping)
        {
            text.Append($" ping={frame.PingData:X16}");
        }

        return text.ToString();
    }
}
