using System.Buffers;
using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>
/// The parser decides every buffer as <see cref="HeadModel"/> does: whole heads, every truncation of them, every
/// two-way split and a sample of three-way splits, under the default limits and under small ones that every head here
/// runs into, and on heads made at random from valid and invalid pieces; and fed a piece at a time to one parser, as a
/// connection's reads feed it, at every step.
/// </summary>
public class HttpParserModelTests
{
    public static TheoryData<string> Heads =>
    [
        Requests.Plaintext,
        Requests.Json,
        "GET /json?a=1&b=2 HTTP/1.0\r\nHost: x\r\nConnection: Keep-Alive\r\n\r\n",
        "HEAD /plaintext HTTP/1.1\r\nhost: x\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET http://tfb-server/json?x HTTP/1.1\r\nHost: tfb-server\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
        "CONNECT tfb-server:443 HTTP/1.1\r\nHost: x\r\n\r\n",
        "M-SEARCH * HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Tab: a\tb\r\nX-Obs: caf\u00e9\r\nX-Empty:\r\nConnection: close, upgrade\r\n\r\n",
        "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Ctl: a\u0001b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Cr: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\nAccept: */*\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\n\rX: y\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.2\r\nHost: x\r\n\r\n",
        "GET / HTTPS/1.1\r\nHost: x\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /a?b#c HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /#\u0001 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /a# HTTP/2.0\r\nHost: x\r\n\r\n",
        "POST /p#f HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /!a\"b HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\nHost: x\r\n\r\n",
        "G@T / HTTP/1.1\r\nHost: x\r\n\r\n",
        "\u0016\u0003\u0001\u0002\u0000GET",
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999\r\n\r\n",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /" + new string('a', 40) + " HTTP/1.1\r\nHost: x\r\nX-Long: " + new string('b', 60) + "\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
    ];

    /// <summary>Limits small enough that the longer heads above reach each of them.</summary>
    private static readonly HttpLimits s_small = new() { MaxRequestLineSize = 24, MaxRequestHeadersSize = 48, MaxRequestHeaderCount = 3 };

    [Theory]
    [MemberData(nameof(Heads))]
    public void EveryTruncationOfAHeadIsDecidedAsTheModelDecidesIt(string text)
    {
        byte[] bytes = Requests.Bytes(text);
        foreach (HttpLimits limits in new[] { new HttpLimits(), s_small })
        {
            for (int length = 0; length <= bytes.Length; length++)
            {
                byte[] prefix = bytes[..length];
                Assert.Equal(HeadModel.Decide(prefix, limits), Describe(new ReadOnlySequence<byte>(prefix), limits));
            }
        }
    }

    [Theory]
    [MemberData(nameof(Heads))]
    public void EverySplitOfAHeadIsDecidedAsTheModelDecidesIt(string text)
    {
        byte[] bytes = Requests.Bytes(text);
        foreach (HttpLimits limits in new[] { new HttpLimits(), s_small })
        {
            string expected = HeadModel.Decide(bytes, limits);
            for (int cut = 1; cut < bytes.Length; cut++)
            {
                Assert.Equal(expected, Describe(Sequences.Split(bytes, cut), limits));
                int second = cut + ((bytes.Length - cut) / 2);
                if (second > cut && second < bytes.Length)
                {
                    Assert.Equal(expected, Describe(Sequences.Split(bytes, cut, second), limits));
                }
            }

            Assert.Equal(expected, Describe(Sequences.Split(bytes, [.. Enumerable.Range(1, Math.Max(0, bytes.Length - 1))]), limits));
        }
    }

    /// <summary>
    /// One parser, fed the head as it arrives (every byte its own segment, all in one segment, and mixes of both), at
    /// every byte decides as the model decides the bytes so far: resuming changes no outcome, however the head comes.
    /// </summary>
    [Theory]
    [MemberData(nameof(Heads))]
    public void AHeadFedAPieceAtATimeToOneParserIsDecidedAsTheModelDecidesEachPrefix(string text)
    {
        byte[] bytes = Requests.Bytes(text);
        foreach (HttpLimits limits in new[] { new HttpLimits(), s_small })
        {
            foreach ((int segmentSize, int step) in new[] { (1, 1), (bytes.Length, 1), (5, 1), (7, 3), (16, 5) })
            {
                AssertTrickledAsTheModelDecides(bytes, limits, segmentSize, step);
            }
        }
    }

    public static TheoryData<string> CommonFieldNames =>
        ["Host", "Accept", "Accept-Encoding", "Accept-Language", "Connection", "Content-Length", "Content-Type", "Cookie", "Referer", "User-Agent"];

    /// <summary>
    /// Common field names, and the line " keep-alive" CRLF, are recognised by word compares. Every byte of such a
    /// field line, set to each of the 256 values (other letter cases, '-' and ':' swapped for the control bytes that
    /// differ from them only in bit 0x20, CR and LF moved, and everything else), must be decided as the model decides.
    /// </summary>
    [Theory]
    [MemberData(nameof(CommonFieldNames))]
    public void CommonFieldLinesWithAnyOneByteChangedAreDecidedAsTheModelDecides(string name)
    {
        string field = name == "Content-Length" ? "Content-Length: 0" : $"{name}: keep-alive";
        string text = "GET / HTTP/1.1\r\n" + field + "\r\n" + (name == "Host" ? "" : "Host: x\r\n") + "X-Padding: 0123456789abcdef\r\n\r\n";
        byte[] original = Encoding.ASCII.GetBytes(text);
        int nameStart = "GET / HTTP/1.1\r\n".Length;
        var limits = new HttpLimits();
        for (int position = nameStart; position < nameStart + field.Length + 2; position++)
        {
            for (int value = 0; value < 256; value++)
            {
                byte[] bytes = (byte[])original.Clone();
                bytes[position] = (byte)value;
                Assert.Equal(HeadModel.Decide(bytes, limits), Describe(new ReadOnlySequence<byte>(bytes), limits));
            }
        }
    }

    /// <summary>
    /// Heads put together at random (a fixed seed, so a failure repeats) from request lines and field lines that are
    /// valid, nearly valid and broken, each checked whole, at every truncation and split in two at a random byte.
    /// </summary>
    [Fact]
    public void RandomHeadsAreDecidedAsTheModelDecides()
    {
        var random = new Random(20261124);
        string[] lines =
        [
            "GET / HTTP/1.1", "GET /plaintext HTTP/1.1", "POST /p?q=1 HTTP/1.0", "GET  / HTTP/1.1", "GET / HTTP/1.1 ", "G\u00e9T / HTTP/1.1",
            "GET /\u0001 HTTP/1.1", "OPTIONS * HTTP/1.1", "GET * HTTP/1.1", "GET http://h HTTP/1.1", "GET h HTTP/1.1", "GET / HTTP/2.0",
            "GET / http/1.1", "GET /", "GET", " GET / HTTP/1.1", "PATCH /x HTTP/1.1", "GET /#f HTTP/1.1", "GET /q?a#f HTTP/1.1",
            "GET /%23 HTTP/1.1", "GET /!\"$ HTTP/1.1", "OPTIONS #*# HTTP/1.1",
        ];
        string[] fields =
        [
            "Host: tfb-server", "host:x", "Host: a", "Connection: keep-alive", "Connection: close", "connection:\tKeep-Alive ,x",
            "Accept: */*", "Content-Length: 3", "Content-Length: 03", "Content-Length: x", "Content-Length: 1, 1",
            "Transfer-Encoding: chunked", "Transfer-Encoding: gzip", "Expect: 100-continue", "X-A: a\tb", "X-A: caf\u00e9",
            "X-A: a\u0000b", "X-A: a\u007Fb", "X-A:", " folded", "Bad Name: x", "NoColon", ": x", "X-A: a\rb", "X: 1\nY: 2",
            "User-Agent: wrk", "Cookie: a=b", "Content-Type: text/plain", "Accept-Encoding: gzip", "Referer: /",
        ];
        var limits = new HttpLimits();
        for (int i = 0; i < 2000; i++)
        {
            var text = new StringBuilder();
            text.Append(random.Next(8) == 0 ? "\r\n" : "").Append(lines[random.Next(lines.Length)]).Append(random.Next(12) == 0 ? "\n" : "\r\n");
            int count = random.Next(6);
            for (int f = 0; f < count; f++)
            {
                text.Append(fields[random.Next(fields.Length)]).Append(random.Next(20) == 0 ? "\n" : "\r\n");
            }

            text.Append("\r\n");
            byte[] bytes = Requests.Bytes(text.ToString());
            HttpLimits chosen = random.Next(4) == 0 ? s_small : limits;
            for (int length = 0; length <= bytes.Length; length++)
            {
                byte[] prefix = bytes[..length];
                Assert.Equal(HeadModel.Decide(prefix, chosen), Describe(new ReadOnlySequence<byte>(prefix), chosen));
            }

            Assert.Equal(HeadModel.Decide(bytes, chosen), Describe(Sequences.Split(bytes, 1 + random.Next(Math.Max(1, bytes.Length - 1))), chosen));
            AssertTrickledAsTheModelDecides(bytes, chosen, 1 + random.Next(bytes.Length), 1 + random.Next(8));
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void AHeadOverTheLimitsInOneLongSegmentIsRefusedWithoutReadingPastThem(int multiple)
    {
        // The same field line, far longer than the head may be: the parser stops at the limit, the model reads it all.
        var limits = new HttpLimits();
        byte[] bytes = Requests.Bytes("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + new string('a', multiple * limits.MaxHeadSize) + "\r\n\r\n");

        Assert.Equal(HeadModel.Decide(bytes, limits), Describe(new ReadOnlySequence<byte>(bytes), limits));
        Assert.Equal("Rejected HeadersTooLarge", Describe(Sequences.Split(bytes, 100, limits.MaxHeadSize + 5), limits));
    }

    /// <summary>
    /// Feeds one parser the head <paramref name="step"/> bytes at a time, in segments of <paramref name="segmentSize"/>,
    /// as a connection's reads would, and checks that each call decides as the model decides the bytes fed so far: a
    /// parse resumed where the last one stopped must see what a parse of the whole prefix sees.
    /// </summary>
    private static void AssertTrickledAsTheModelDecides(byte[] bytes, HttpLimits limits, int segmentSize, int step)
    {
        var parser = new HttpParser(limits);
        List<(int Fed, string Outcome)> outcomes = ParserFeed.Trickle(parser, new GrowingSequence(segmentSize), bytes, step);
        foreach ((int fed, string outcome) in outcomes)
        {
            Assert.Equal(HeadModel.Decide(bytes[..fed], limits), outcome);
        }
    }

    private static string Describe(ReadOnlySequence<byte> buffer, HttpLimits limits) => ParserFeed.OneShot(buffer, limits);
}
