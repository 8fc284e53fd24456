using System.Buffers;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

public class RequestBodyReaderTests
{
    // Its first chunk's extensions pass through every step of their grammar (RFC 9112 §7.1.1): BWS, token and quoted
    // values, an escaped quote, a name alone; each split point below lands in each of them.
    private const string ChunkedBody = "5 ;name=value ; q = \"a \\\"; b\" ;flag\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n000\r\nTrailer-One: 1\r\nTrailer-Two: 2\r\n\r\n";

    private static RequestBodyReader ChunkedReader(HttpLimits? limits = null) =>
        new(new RequestHead { BodyKind = BodyKind.Chunked }, limits ?? new HttpLimits());

    public static TheoryData<int> ChunkedSplitPoints()
    {
        var data = new TheoryData<int>();
        for (int i = 0; i <= ChunkedBody.Length; i++)
        {
            data.Add(i);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(ChunkedSplitPoints))]
    public void ChunkedBodyFedInTwoPiecesAtAnyByteEndsAtItsLastByte(int point)
    {
        byte[] bytes = Requests.Bytes(ChunkedBody + "GET /next");
        RequestBodyReader reader = ChunkedReader();

        ParseStatus first = reader.Read(new ReadOnlySequence<byte>(bytes, 0, point), out long used, out RequestRejection rejection);
        Assert.Equal(RequestRejection.None, rejection);
        Assert.Equal(point < ChunkedBody.Length ? ParseStatus.Incomplete : ParseStatus.Complete, first);
        Assert.Equal(Math.Min(point, ChunkedBody.Length), used);

        if (first == ParseStatus.Incomplete)
        {
            ParseStatus second = reader.Read(new ReadOnlySequence<byte>(bytes, point, bytes.Length - point), out long rest, out rejection);
            Assert.Equal(ParseStatus.Complete, second);
            Assert.Equal(ChunkedBody.Length, used + rest);
        }
    }

    [Theory]
    [MemberData(nameof(ChunkedSplitPoints))]
    public void ChunkedDataIsHandedOutExactlyWhereverTheBodyIsSplit(int point)
    {
        byte[] bytes = Requests.Bytes(ChunkedBody + "GET /next");
        RequestBodyReader reader = ChunkedReader();
        var data = new List<byte>();
        long used = 0;
        ParseStatus status = ParseStatus.Incomplete;
        foreach ((int start, int end) in new[] { (0, point), (point, bytes.Length) })
        {
            var piece = new ReadOnlySequence<byte>(bytes, start, end - start);
            int dataLength = 1;
            while (status == ParseStatus.Incomplete && dataLength > 0)
            {
                // At most 4 bytes at a time, so runs of data are handed out across several calls as well.
                status = reader.ReadData(piece, 4, out long consumed, out dataLength, out RequestRejection rejection);
                Assert.Equal(RequestRejection.None, rejection);
                data.AddRange(piece.Slice(consumed - dataLength, dataLength).ToArray());
                piece = piece.Slice(consumed);
                used += consumed;
            }
        }

        Assert.Equal(ParseStatus.Complete, status);
        Assert.Equal(ChunkedBody.Length, used);
        Assert.Equal("helloabcdefghijklmnopqrstuvwxyz", Requests.Text(data.ToArray()));
    }

    [Fact]
    public void ChunkedBodyOverManySegmentsEndsAtItsLastByte()
    {
        byte[] bytes = Requests.Bytes(ChunkedBody + "tail");
        RequestBodyReader reader = ChunkedReader();

        ParseStatus status = reader.Read(Sequences.Split(bytes, 3, 7, 15, 30, 50), out long used, out _);

        Assert.Equal(ParseStatus.Complete, status);
        Assert.Equal(ChunkedBody.Length, used);
    }

    [Theory]
    [InlineData("x\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("5\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("5\r\nhello\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("5\r\nhelloX\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("5;a\u0001\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("0\r\nBad\u0000Trailer\r\n\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("0\r\n\rX", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("0\r\n Folded: x\r\n\r\n", nameof(RequestRejection.InvalidChunkedBody))]    // obsolete line folding
    [InlineData("0\r\nNo-Colon\r\n\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("0\r\nName : x\r\n\r\n", nameof(RequestRejection.InvalidChunkedBody))]     // space before the colon
    [InlineData("0\r\n: empty\r\n\r\n", nameof(RequestRejection.InvalidChunkedBody))]      // no name
    [InlineData("0\r\nX: a\u007Fb\r\n\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("0\r\nX: a\nb\r\n\r\n", nameof(RequestRejection.InvalidChunkedBody))]     // a bare LF in a value
    [InlineData("5;\r\n", nameof(RequestRejection.InvalidChunkedBody))]             // a bare semicolon
    [InlineData("5 \r\n", nameof(RequestRejection.InvalidChunkedBody))]             // whitespace, then no extension
    [InlineData("5;a \r\n", nameof(RequestRejection.InvalidChunkedBody))]           // whitespace after the last name
    [InlineData("5;@\r\n", nameof(RequestRejection.InvalidChunkedBody))]            // a name that is not a token
    [InlineData("5;a b\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("5;a=\r\n", nameof(RequestRejection.InvalidChunkedBody))]           // '=' and no value
    [InlineData("5;a=b=c\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("5;a=\"x\r\n", nameof(RequestRejection.InvalidChunkedBody))]        // a quoted value never closed
    [InlineData("5;a=\"x\"y\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("FFFFFFFFFFFFFFFFFF\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("10000000000000000\r\n", nameof(RequestRejection.InvalidChunkedBody))]
    [InlineData("FFFFFFFFFFFFFFF\r\n", nameof(RequestRejection.BodyTooLarge))]
    [InlineData("000000000000000000000100001\r\n", nameof(RequestRejection.BodyTooLarge))]
    [InlineData("100001\r\n", nameof(RequestRejection.BodyTooLarge))]
    public void MalformedChunkedBodyIsRejected(string body, string reason)
    {
        RequestRejection expected = Enum.Parse<RequestRejection>(reason);
        RequestBodyReader reader = ChunkedReader();

        ParseStatus status = reader.Read(new ReadOnlySequence<byte>(Requests.Bytes(body)), out _, out RequestRejection rejection);

        Assert.Equal(ParseStatus.Rejected, status);
        Assert.Equal(expected, rejection);
    }

    [Fact]
    public void TrailersOfTheFieldGrammarAreAcceptedAndDropped()
    {
        const string body = "5\r\nhello\r\n0\r\nX-Empty:\r\nX-Text: \tsome \u00e9 text \r\n\r\n";
        RequestBodyReader reader = ChunkedReader();

        ParseStatus status = reader.Read(new ReadOnlySequence<byte>(Requests.Bytes(body)), out long used, out RequestRejection rejection);

        Assert.Equal(RequestRejection.None, rejection);
        Assert.Equal(ParseStatus.Complete, status);
        Assert.Equal(body.Length, used);
    }

    [Theory]
    [InlineData("6\r\nabcdef\r\n6\r\n", "MaxRequestBodySize", 10, nameof(RequestRejection.BodyTooLarge))]
    [InlineData("0\r\nX-Long-Trailer: 0123456789\r\n\r\n", "MaxRequestHeadersSize", 16, nameof(RequestRejection.TrailersTooLarge))]
    [InlineData("0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", "MaxRequestHeaderCount", 2, nameof(RequestRejection.TrailersTooLarge))]
    public void AChunkedBodyPastALimitIsRejected(string body, string limit, int value, string reason)
    {
        var limits = new HttpLimits();
        typeof(HttpLimits).GetProperty(limit)!.SetValue(limits, limit == "MaxRequestBodySize" ? (object)(long)value : value);
        RequestBodyReader reader = ChunkedReader(limits);

        ParseStatus status = reader.Read(new ReadOnlySequence<byte>(Requests.Bytes(body)), out _, out RequestRejection rejection);

        Assert.Equal(ParseStatus.Rejected, status);
        Assert.Equal(Enum.Parse<RequestRejection>(reason), rejection);
    }

    [Fact]
    public void ContentLengthBodyIsCountedAcrossReads()
    {
        var reader = new RequestBodyReader(new RequestHead { BodyKind = BodyKind.ContentLength, ContentLength = 10 }, new HttpLimits());

        Assert.Equal(ParseStatus.Incomplete, reader.Read(new ReadOnlySequence<byte>(new byte[4]), out long first, out _));
        Assert.Equal(ParseStatus.Complete, reader.Read(new ReadOnlySequence<byte>(new byte[20]), out long second, out _));
        Assert.Equal(4, first);
        Assert.Equal(6, second);
    }
}
