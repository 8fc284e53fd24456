using System.Buffers;
using System.Text;
using PlatformBenchmarks.Http;
using HttpMethod = PlatformBenchmarks.Http.HttpMethod;

using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>
/// The parser's outcome for valid and invalid heads, and that a head split across segments anywhere parses exactly
/// as it does in one piece. The parser has a one-pass path for well-formed heads and a general path for everything
/// else; these cases exercise both and the hand-over between them.
/// </summary>
public class HttpParserPathTests
{
    private const string Plaintext =
        "GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\nAccept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\nConnection: keep-alive\r\n\r\n";

    public static TheoryData<string> Heads =>
    [
        Plaintext,
        "GET /json HTTP/1.1\r\nHost: tfb-server\r\nAccept: application/json\r\nConnection: keep-alive\r\n\r\n",
        "GET /json?a=1&b=2 HTTP/1.0\r\nHost: x\r\nConnection: Keep-Alive\r\n\r\n",
        "HEAD /plaintext HTTP/1.1\r\nhost: x\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET http://tfb-server/json?x HTTP/1.1\r\nHost: tfb-server\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Tab: a\tb\r\nX-Obs: caf\u00e9\r\nX-Empty:\r\nConnection: close, upgrade\r\n\r\n",
        "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Ctl: a\u0001b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Cr: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\nAccept: */*\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.2\r\nHost: x\r\n\r\n",
        "GET / HTTPS/1.1\r\nHost: x\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n",
        "G@T / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n",
        "GET / HTTP/1.1\r\nHo",
        "\r\n",
    ];

    [Fact]
    public void TfbPlaintextRequestParsesInPlace()
    {
        byte[] bytes = Encoding.ASCII.GetBytes(Plaintext);
        var parser = new HttpParser(new HttpLimits());
        ParseStatus status = parser.TryParseHead(new ReadOnlySequence<byte>(bytes), out RequestHead head, out ReadOnlySpan<byte> headBytes, out int consumed, out _);

        Assert.Equal(ParseStatus.Complete, status);
        Assert.Equal(bytes.Length, consumed);
        Assert.True(headBytes.SequenceEqual(bytes));
        var request = new HttpRequest(headBytes, in head);
        Assert.Equal(HttpMethod.Get, request.Method);
        Assert.Equal(HttpVersion.Http11, request.Version);
        Assert.True(request.KeepAlive);
        Assert.Equal("/plaintext", Encoding.ASCII.GetString(request.Path));
        Assert.False(request.HasQuery);
        Assert.Equal(3, head.HeaderCount);
        Assert.Equal(BodyKind.None, head.BodyKind);
    }

    [Theory]
    [InlineData("GET /json?a=1 HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", true, "/json", "a=1")]
    [InlineData("GET /json HTTP/1.0\r\nHost: x\r\n\r\n", false, "/json", null)]
    [InlineData("GET /json HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n", false, "/json", null)]
    [InlineData("GET /json HTTP/1.1\r\nHost: x\r\nCONNECTION:\tkeep-alive, close\t\r\n\r\n", false, "/json", null)]
    [InlineData("GET http://h/p?q HTTP/1.1\r\nHost: h\r\n\r\n", true, "/p", "q")]
    public void ParsesPersistenceAndTarget(string text, bool keepAlive, string path, string? query)
    {
        ParseStatus status = Parse(text, out RequestHead head, out byte[] headBytes, out _, out _);

        Assert.Equal(ParseStatus.Complete, status);
        var request = new HttpRequest(headBytes, in head);
        Assert.Equal(keepAlive, request.KeepAlive);
        Assert.Equal(path, Encoding.ASCII.GetString(request.Path));
        Assert.Equal(query, request.HasQuery ? Encoding.ASCII.GetString(request.Query) : null);
    }

    [Theory]
    [InlineData("GET / HTTP/1.1\r\nHost: x\r\nX: a\u0001b\r\n\r\n", "InvalidHeaderValue")]
    [InlineData("GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", "InvalidHeaderValue")]
    [InlineData("GET / HTTP/1.1\r\nHost: x\nX: y\r\n\r\n", "InvalidHeaderLine")]
    [InlineData("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", "ObsoleteLineFolding")]
    [InlineData("GET / HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n", "InvalidHeaderName")]
    [InlineData("GET / HTTP/1.1\r\nHost : x\r\n\r\n", "InvalidHeaderName")]
    [InlineData("GET / HTTP/1.2\r\nHost: x\r\n\r\n", "UnsupportedVersion")]
    [InlineData("GET / HTTPS/1.1\r\nHost: x\r\n\r\n", "InvalidVersion")]
    [InlineData("GET /\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n", "InvalidTarget")]
    [InlineData("G@T / HTTP/1.1\r\nHost: x\r\n\r\n", "InvalidMethod")]
    [InlineData("GET / HTTP/1.1\r\n\r\n", "MissingHost")]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "MultipleHosts")]
    [InlineData("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "ContentLengthWithTransferEncoding")]
    [InlineData("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\n", "InvalidContentLength")]
    public void RejectsInvalidHeads(string text, string expected)
    {
        ParseStatus status = Parse(text, out _, out _, out _, out RequestRejection rejection);

        Assert.Equal(ParseStatus.Rejected, status);
        Assert.Equal(expected, rejection.ToString());
    }

    [Fact]
    public void RejectsTooManyFieldsAndTooLongLines()
    {
        var limits = new HttpLimits { MaxRequestHeaderCount = 2, MaxRequestLineSize = 20 };
        Assert.Equal(RequestRejection.TooManyHeaders, ParseRejection("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n", limits));
        Assert.Equal(RequestRejection.RequestLineTooLong, ParseRejection("GET /0123456789 HTTP/1.1\r\nHost: x\r\n\r\n", limits));
    }

    /// <summary>Every two-way split, and a sample of three-way splits, gives the result of the unsplit head.</summary>
    [Theory]
    [MemberData(nameof(Heads))]
    public void SplitAnywhereParsesAsInOnePiece(string text)
    {
        byte[] bytes = Encoding.Latin1.GetBytes(text);
        string whole = Describe(new ReadOnlySequence<byte>(bytes));
        for (int cut = 1; cut < bytes.Length; cut++)
        {
            Assert.Equal(whole, Describe(Sequences.Split(bytes, cut)));
            int second = cut + ((bytes.Length - cut) / 2);
            if (second > cut && second < bytes.Length)
            {
                Assert.Equal(whole, Describe(Sequences.Split(bytes, cut, second)));
            }
        }
    }

    public static TheoryData<string> CommonFieldNames =>
        ["Host", "Accept", "Accept-Encoding", "Accept-Language", "Connection", "Content-Length", "Content-Type", "Cookie", "Referer", "User-Agent"];

    /// <summary>
    /// Common field names, and the line " keep-alive" CRLF, are recognised by word compares on the well-formed path.
    /// Every byte of such a field line, set to each of the 256 values (other letter cases, '-' and ':' swapped for the
    /// control bytes that differ from them only in bit 0x20, CR and LF moved, and everything else), must parse exactly
    /// as the general path decides.
    /// </summary>
    [Theory]
    [MemberData(nameof(CommonFieldNames))]
    public void CommonFieldLinesWithAnyOneByteChangedParseAsTheGeneralPathDecides(string name)
    {
        string field = name == "Content-Length" ? "Content-Length: 0" : $"{name}: keep-alive";
        string text = "GET / HTTP/1.1\r\n" + field + "\r\n" + (name == "Host" ? "" : "Host: x\r\n") + "X-Padding: 0123456789abcdef\r\n\r\n";
        byte[] original = Encoding.ASCII.GetBytes(text);
        int nameStart = "GET / HTTP/1.1\r\n".Length;
        for (int position = nameStart; position < nameStart + field.Length + 2; position++)
        {
            for (int value = 0; value < 256; value++)
            {
                byte[] bytes = (byte[])original.Clone();
                bytes[position] = (byte)value;
                Assert.Equal(DescribeGeneral(bytes), Describe(new ReadOnlySequence<byte>(bytes)));
            }
        }
    }

    /// <summary>What the general path (<see cref="HttpParser.ParseHead"/>) makes of a head that starts at byte 0.</summary>
    private static string DescribeGeneral(byte[] bytes)
    {
        int end = bytes.AsSpan().IndexOf("\r\n\r\n"u8);
        var parser = new HttpParser(new HttpLimits());
        RequestRejection rejection = parser.ParseHead(bytes.AsSpan(0, end + 4), out RequestHead h);
        return rejection == RequestRejection.None
            ? FormattableString.Invariant(
                $"Complete {end + 4} {Convert.ToHexString(bytes, 0, end + 4)} {h.Method} {h.Version} {h.KeepAlive} {h.BodyKind} {h.MethodLength} {h.TargetStart} {h.TargetLength} {h.PathStart} {h.PathLength} {h.QueryStart} {h.QueryLength} {h.HeaderCount} {h.ContentLength}")
            : $"Rejected {rejection}";
    }

    private static ParseStatus Parse(string text, out RequestHead head, out byte[] headBytes, out int consumed, out RequestRejection rejection)
    {
        var parser = new HttpParser(new HttpLimits());
        ParseStatus status = parser.TryParseHead(
            new ReadOnlySequence<byte>(Encoding.Latin1.GetBytes(text)), out head, out ReadOnlySpan<byte> span, out consumed, out rejection);
        headBytes = span.ToArray();
        return status;
    }

    private static RequestRejection ParseRejection(string text, HttpLimits limits)
    {
        var parser = new HttpParser(limits);
        ParseStatus status = parser.TryParseHead(new ReadOnlySequence<byte>(Encoding.ASCII.GetBytes(text)), out _, out _, out _, out RequestRejection rejection);
        Assert.Equal(ParseStatus.Rejected, status);
        return rejection;
    }

    private static string Describe(ReadOnlySequence<byte> buffer)
    {
        var parser = new HttpParser(new HttpLimits());
        ParseStatus status = parser.TryParseHead(buffer, out RequestHead h, out ReadOnlySpan<byte> headBytes, out int consumed, out RequestRejection rejection);
        return status switch
        {
            ParseStatus.Complete => FormattableString.Invariant(
                $"Complete {consumed} {Convert.ToHexString(headBytes)} {h.Method} {h.Version} {h.KeepAlive} {h.BodyKind} {h.MethodLength} {h.TargetStart} {h.TargetLength} {h.PathStart} {h.PathLength} {h.QueryStart} {h.QueryLength} {h.HeaderCount} {h.ContentLength}"),
            ParseStatus.Incomplete => FormattableString.Invariant($"Incomplete {consumed}"),
            _ => $"Rejected {rejection}",
        };
    }
}
