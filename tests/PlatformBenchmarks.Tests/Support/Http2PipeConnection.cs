using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using System.Text;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.Http2;
using PlatformBenchmarks.Tests.Http2;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// An HTTP/2 connection over in-memory pipes, on a clock that stands still until a test moves it: raw frames in, the
/// server's frames out, and the connection itself, whose counters for tests show what it holds.
/// </summary>
internal sealed class Http2PipeConnection<TApp> : IAsyncDisposable
    where TApp : struct, IHttpApplication
{
    private readonly Pipe _requests = new();
    private readonly Pipe _responses = new();
    private readonly ExaminedCountingReader _input;

    // The client's view of the server's header blocks: its decoder follows the server's encoder block by block.
    private readonly HpackDecoder _decoder = new(4096, 1024 * 1024);
    private long _sent;

    /// <param name="app">The application.</param>
    /// <param name="limits">The server's limits; the defaults when null.</param>
    /// <param name="output">Makes the writer the server writes to from the one the test reads (a writer over a stream, as TLS's).</param>
    public Http2PipeConnection(TApp app, HttpLimits? limits = null, Func<PipeWriter, PipeWriter>? output = null)
    {
        var context = new HttpServerContext(limits ?? new HttpLimits(), Time, new DateHeader(Time), NullLogger.Instance);
        _input = new ExaminedCountingReader(_requests.Reader);
        Connection = new Http2Connection<TApp>(app, new DuplexPipe(_input, output?.Invoke(_responses.Writer) ?? _responses.Writer), context);
        Completion = Task.Run(Connection.ExecuteAsync, CancellationToken.None);
    }

    public Http2Connection<TApp> Connection { get; }

    /// <summary>The connection's clock: it stands still until a test advances it.</summary>
    public FakeTimeProvider Time { get; } = new(new DateTimeOffset(2026, 1, 2, 3, 4, 5, TimeSpan.Zero));

    public Task Completion { get; }

    /// <summary>The bytes the server has consumed: where it stopped reading a flood.</summary>
    public long Consumed => _input.Consumed;

    /// <summary>The bytes sent so far.</summary>
    public long Sent => _sent;

    /// <summary>
    /// A header block asking GET <paramref name="path"/>: :method GET and :scheme http indexed, :path and :authority as
    /// literals without indexing (RFC 7541 §6.1, §6.2.2).
    /// </summary>
    public static byte[] Get(string path) => [0x82, 0x86, 0x04, (byte)path.Length, .. Encoding.ASCII.GetBytes(path), 0x01, 9, .. "localhost"u8];

    /// <summary>The client's stream number <paramref name="index"/> (from 0): 1, 3, 5, ...</summary>
    public static int Stream(int index) => (2 * index) + 1;

    /// <summary>The bytes of <paramref name="count"/> items, one after the other.</summary>
    public static byte[] Repeat(int count, Func<int, byte[]> item)
    {
        var bytes = new List<byte>();
        for (int i = 0; i < count; i++)
        {
            bytes.AddRange(item(i));
        }

        return [.. bytes];
    }

    /// <summary>One frame's bytes (RFC 9113 §4.1).</summary>
    public static byte[] Frame(Http2FrameType type, byte flags, int streamId, ReadOnlySpan<byte> payload)
    {
        byte[] bytes = new byte[Http2Frame.HeaderLength + payload.Length];
        BinaryPrimitives.WriteUInt32BigEndian(bytes, ((uint)payload.Length << 8) | (byte)type);
        bytes[4] = flags;
        BinaryPrimitives.WriteInt32BigEndian(bytes.AsSpan(5), streamId);
        payload.CopyTo(bytes.AsSpan(Http2Frame.HeaderLength));
        return bytes;
    }

    /// <summary>A request on <paramref name="streamId"/> in one HEADERS frame that ends the stream.</summary>
    public static byte[] Request(int streamId, string path) =>
        Frame(Http2FrameType.Headers, Http2FrameFlags.EndHeaders | Http2FrameFlags.EndStream, streamId, Get(path));

    public static byte[] RstStream(int streamId, Http2ErrorCode code)
    {
        byte[] payload = new byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(payload, (uint)code);
        return Frame(Http2FrameType.RstStream, 0, streamId, payload);
    }

    public static byte[] WindowUpdate(int streamId, int increment)
    {
        byte[] payload = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(payload, increment);
        return Frame(Http2FrameType.WindowUpdate, 0, streamId, payload);
    }

    public static byte[] Ping(byte mark = 0) => Frame(Http2FrameType.Ping, 0, 0, [mark, 0, 0, 0, 0, 0, 0, 0]);

    public static byte[] Settings(params (Http2SettingsParameter Parameter, uint Value)[] settings)
    {
        byte[] entries = new byte[settings.Length * 6];
        for (int i = 0; i < settings.Length; i++)
        {
            BinaryPrimitives.WriteUInt16BigEndian(entries.AsSpan(i * 6), (ushort)settings[i].Parameter);
            BinaryPrimitives.WriteUInt32BigEndian(entries.AsSpan((i * 6) + 2), settings[i].Value);
        }

        return Frame(Http2FrameType.Settings, 0, 0, entries);
    }

    /// <summary>The client preface and SETTINGS, then the server's SETTINGS and its acknowledgement read.</summary>
    public async Task StartAsync(params (Http2SettingsParameter Parameter, uint Value)[] settings)
    {
        await SendAsync([.. Http2Connection<TApp>.Preface, .. Settings(settings)]);
        List<Http2TestFrame> frames = await ReadUntilAsync(frame => frame.Type == Http2FrameType.Settings && frame.Flags == Http2FrameFlags.Ack);
        Assert.Equal(Http2FrameType.Settings, frames[0].Type);

        // A client acknowledges the server's SETTINGS (RFC 9113 §6.5.3), or the server ends the connection once its
        // settings timeout has passed on the fake clock.
        await SendAsync([0, 0, 0, (byte)Http2FrameType.Settings, Http2FrameFlags.Ack, 0, 0, 0, 0]);
    }

    public async Task SendAsync(byte[] bytes)
    {
        _sent += bytes.Length;
        await _requests.Writer.WriteAsync(bytes);
    }

    /// <summary>Completes once the server has examined everything sent, so it waits for more.</summary>
    public Task ExaminedAllSentAsync() => _input.ExaminedAsync(_sent);

    /// <summary>The server's next frame, or null when it has closed the connection.</summary>
    public async Task<Http2TestFrame?> ReadFrameAsync()
    {
        using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        byte[] header = new byte[Http2Frame.HeaderLength];
        while (true)
        {
            // A deadline for a failing test only: the server writes as soon as it has handled what it read.
            ReadResult result = await _responses.Reader.ReadAsync(deadline.Token);
            ReadOnlySequence<byte> buffer = result.Buffer;
            if (buffer.Length >= Http2Frame.HeaderLength)
            {
                buffer.Slice(0, Http2Frame.HeaderLength).CopyTo(header);
                int length = (header[0] << 16) | (header[1] << 8) | header[2];
                if (buffer.Length >= Http2Frame.HeaderLength + length)
                {
                    var frame = new Http2TestFrame(
                        (Http2FrameType)header[3],
                        header[4],
                        BinaryPrimitives.ReadInt32BigEndian(header.AsSpan(5)) & int.MaxValue,
                        buffer.Slice(Http2Frame.HeaderLength, length).ToArray());
                    _responses.Reader.AdvanceTo(buffer.GetPosition(Http2Frame.HeaderLength + length));
                    return frame;
                }
            }

            _responses.Reader.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted)
            {
                Assert.True(buffer.IsEmpty, "The server closed the connection inside a frame.");
                return null;
            }
        }
    }

    public async Task<List<Http2TestFrame>> ReadUntilAsync(Func<Http2TestFrame, bool> last)
    {
        var frames = new List<Http2TestFrame>();
        while (true)
        {
            Http2TestFrame? frame = await ReadFrameAsync();
            Assert.True(frame is not null, $"The server closed the connection after {string.Join(", ", frames.TakeLast(3))}.");
            frames.Add(frame);
            if (last(frame))
            {
                return frames;
            }
        }
    }

    /// <summary>Every frame until the server closes the connection.</summary>
    public async Task<List<Http2TestFrame>> ReadToEndAsync()
    {
        var frames = new List<Http2TestFrame>();
        while (await ReadFrameAsync() is { } frame)
        {
            frames.Add(frame);
        }

        return frames;
    }

    /// <summary>The :status of a response's HEADERS, decoded as the client would (so every block must be passed, in order).</summary>
    public int Status(Http2TestFrame headers)
    {
        Assert.Equal(Http2FrameType.Headers, headers.Type);
        var recorder = new HpackRecorder();
        Assert.Equal(HpackError.None, _decoder.Decode(headers.Payload, endHeaders: true, ref recorder));
        return int.Parse(recorder.Fields.Single(field => field.Name == ":status").Value, System.Globalization.CultureInfo.InvariantCulture);
    }

    public async ValueTask DisposeAsync()
    {
        await _requests.Writer.CompleteAsync();
        await _responses.Reader.CompleteAsync();
        await Completion.WaitAsync(TimeSpan.FromSeconds(10));
    }
}

/// <summary>A frame the server sent.</summary>
internal sealed record Http2TestFrame(Http2FrameType Type, byte Flags, int StreamId, byte[] Payload)
{
    /// <summary>The error code of a GOAWAY or RST_STREAM.</summary>
    public Http2ErrorCode ErrorCode => (Http2ErrorCode)BinaryPrimitives.ReadUInt32BigEndian(Payload.AsSpan(Type == Http2FrameType.GoAway ? 4 : 0));

    /// <summary>The last stream a GOAWAY names.</summary>
    public int LastStreamId => BinaryPrimitives.ReadInt32BigEndian(Payload) & int.MaxValue;

    public override string ToString() => $"{Type} flags {Flags:x} stream {StreamId}, {Payload.Length} bytes";
}
