using System.Buffers;
using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>
/// A head that arrives in pieces is parsed by one parser across calls, each resuming where the last stopped: the cost
/// stays linear in the head's size however small the pieces, and every call decides as a parse of all the bytes so
/// far would.
/// </summary>
public class HttpParserResumeTests
{
    private const int HeadSize = 32 * 1024;

    /// <summary>Heads of 32 KiB, within the default limits, ending in a single line as long as the limits allow, or in many lines.</summary>
    public static TheoryData<string> LargeHeads()
    {
        const string Start = "GET /trickle HTTP/1.1\r\nHost: tfb-server\r\n";
        var limits = new HttpLimits();
        string oneLine = Start + "X-Long: ";
        oneLine += new string('a', HeadSize - oneLine.Length - 4) + "\r\n\r\n";

        var lines = new StringBuilder(Start);
        for (int i = 0; lines.Length < HeadSize - 400; i++)
        {
            lines.Append("X-Field-").Append(i).Append(": ").Append('v', 600).Append("\r\n");
        }

        lines.Append("X-Last: ");
        lines.Append('z', HeadSize - lines.Length - 4).Append("\r\n\r\n");
        string longTarget = "GET /" + new string('t', limits.MaxRequestLineSize - "GET / HTTP/1.1".Length) + " HTTP/1.1\r\nHost: tfb-server\r\nX-Rest: ";
        longTarget += new string('r', HeadSize - longTarget.Length - 4) + "\r\n\r\n";
        return [oneLine, lines.ToString(), longTarget];
    }

    [Theory]
    [MemberData(nameof(LargeHeads))]
    public void AHeadTrickledAByteAtATimeIsReadALinearNumberOfTimes(string text)
    {
        // Every byte arrives in its own segment, each call sees the whole head so far, and the parser reads what is
        // new: a few bytes per call. Parsing it all again on every call would read about HeadSize² / 2 bytes (5 * 10^8).
        byte[] bytes = Requests.Bytes(text);
        var limits = new HttpLimits();
        Assert.Equal(HeadSize, bytes.Length);
        var buffer = new GrowingSequence(1);

        List<(int Fed, string Outcome)> outcomes = ParserFeed.Trickle(new HttpParser(limits), buffer, bytes, 1);

        Assert.Equal(bytes.Length, outcomes.Count);
        Assert.Equal(ParserFeed.OneShot(new ReadOnlySequence<byte>(bytes), limits), outcomes[^1].Outcome);
        Assert.StartsWith("Complete", outcomes[^1].Outcome, StringComparison.Ordinal);
        Assert.InRange(buffer.BytesRead, bytes.Length, 4L * bytes.Length);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4096)]
    [InlineData(int.MaxValue)]
    public void TfbRequestsTrickledToOneParserAreIncompleteUntilTheirLastByteThenParseLikeOnePiece(int segmentSize)
    {
        foreach (string request in new[] { Requests.Plaintext, Requests.Json })
        {
            byte[] bytes = Requests.Bytes(request);
            var limits = new HttpLimits();
            List<(int Fed, string Outcome)> outcomes =
                ParserFeed.Trickle(new HttpParser(limits), new GrowingSequence(Math.Min(segmentSize, bytes.Length)), bytes, 1);

            Assert.Equal(bytes.Length, outcomes.Count);
            Assert.All(outcomes.SkipLast(1), o => Assert.Equal("Incomplete 0", o.Outcome));
            Assert.Equal(ParserFeed.OneShot(new ReadOnlySequence<byte>(bytes), limits), outcomes[^1].Outcome);
        }
    }

    /// <summary>
    /// Every invalid request of <see cref="HttpParserTests.InvalidRequests"/>, over the limits too, fed a byte at a time:
    /// each call decides as a parse of the bytes so far does, so a rejection (a limit passed by a line still arriving
    /// included) comes at the same byte, and it is the same rejection.
    /// </summary>
    [Theory]
    [MemberData(nameof(HttpParserTests.InvalidRequests), MemberType = typeof(HttpParserTests))]
    public void AnInvalidRequestTrickledToOneParserIsRejectedAtTheSameByteAsAWholeParse(string request, string rejection, int status)
    {
        byte[] bytes = Requests.Bytes(request);
        var limits = new HttpLimits();
        foreach (int segmentSize in new[] { 1, 7, bytes.Length })
        {
            List<(int Fed, string Outcome)> outcomes = ParserFeed.Trickle(new HttpParser(limits), new GrowingSequence(segmentSize), bytes, 1);

            foreach ((int fed, string outcome) in outcomes)
            {
                Assert.Equal(ParserFeed.OneShot(new ReadOnlySequence<byte>(bytes, 0, fed), limits), outcome);
            }

            Assert.Equal($"Rejected {rejection}", outcomes[^1].Outcome);
            Assert.Equal((HttpStatus)status, Enum.Parse<RequestRejection>(rejection).ToStatus());
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(16)]
    public void PipelinedHeadsTrickledToOneParserAreEachParsedLikeOnePiece(int segmentSize)
    {
        // The first head's state must not leak into the second: a different method, target, version and framing.
        byte[] first = Requests.Bytes("\r\nPOST /p?q=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nX-Tab: a\tb\r\n\r\n");
        byte[] second = Requests.Bytes("GET /json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        var limits = new HttpLimits();
        var parser = new HttpParser(limits);
        var buffer = new GrowingSequence(segmentSize);

        Assert.Equal(ParserFeed.OneShot(new ReadOnlySequence<byte>(first), limits), ParserFeed.Trickle(parser, buffer, first, 1)[^1].Outcome);
        buffer.Consume(buffer.Sequence.Length);
        Assert.Equal(ParserFeed.OneShot(new ReadOnlySequence<byte>(second), limits), ParserFeed.Trickle(parser, buffer, second, 1)[^1].Outcome);
    }

    [Fact]
    public void AHeadStillArrivingAcrossSegmentsKeepsItsCopyUntilItIsParsed()
    {
        // The copy of what has come is what the next call goes on from; once the head is answered it is given back.
        byte[] bytes = Requests.Bytes(Requests.Json);
        var pool = new CountingArrayPool();
        var parser = new HttpParser(new HttpLimits(), pool);
        var buffer = new GrowingSequence(8);
        buffer.Append(bytes.AsSpan(0, 40));

        Assert.Equal(ParseStatus.Incomplete, parser.TryParseHead(buffer.Sequence, out _, out _, out _, out _));
        parser.ReleaseScratch();
        Assert.Equal(1, pool.Outstanding);

        buffer.Append(bytes.AsSpan(40));
        Assert.Equal(ParseStatus.Complete, parser.TryParseHead(buffer.Sequence, out _, out _, out _, out _));
        parser.ReleaseScratch();
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void ResetGivesBackTheCopyOfAHeadStillArrivingAndForgetsIt()
    {
        var limits = new HttpLimits();
        var pool = new CountingArrayPool();
        var parser = new HttpParser(limits, pool);
        var buffer = new GrowingSequence(8);
        buffer.Append(Requests.Bytes("POST /first HTTP/1.1\r\nHost: a\r\nContent-Len"));
        Assert.Equal(ParseStatus.Incomplete, parser.TryParseHead(buffer.Sequence, out _, out _, out _, out _));

        parser.Reset();

        Assert.Equal(0, pool.Outstanding);
        byte[] other = Requests.Bytes("GET /other HTTP/1.1\r\nHost: b\r\n\r\n");
        Assert.Equal(ParserFeed.OneShot(new ReadOnlySequence<byte>(other), limits), ParserFeed.Trickle(parser, new GrowingSequence(8), other, other.Length)[^1].Outcome);
    }
}
