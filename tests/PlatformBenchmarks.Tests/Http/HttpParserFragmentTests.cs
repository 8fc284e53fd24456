using System.Buffers;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>
/// No form of request-target has a fragment (RFC 9112 §3.2; a client leaves it out, RFC 9110 §7.1), so a '#' anywhere
/// in a target is refused with 400 and its reason, whichever path of the parser reads the line (a GET's fast scan or
/// the exact parse of any other line), however the bytes arrive, and without touching the requests before it.
/// </summary>
public class HttpParserFragmentTests
{
    private const string Fields = " HTTP/1.1\r\nHost: x\r\n\r\n";

    /// <summary>A '#' at every position of targets in origin-form (with and without a query) and absolute-form.</summary>
    public static TheoryData<string> RequestsWithAFragment()
    {
        var data = new TheoryData<string>();
        foreach (string method in new[] { "GET", "POST" })
        {
            foreach (string target in new[] { "/plaintext", "/queries?queries=20", "http://tfb-server/json?x=1" })
            {
                for (int position = 0; position <= target.Length; position++)
                {
                    data.Add($"{method} {target[..position]}#{target[position..]}{Fields}");
                }
            }

            data.Add($"{method} /path#frag{Fields}");
            data.Add($"{method} /#{Fields}");
            data.Add($"{method} /a#b#c{Fields}");
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(RequestsWithAFragment))]
    public void AFragmentAnywhereInTheTargetIsRefusedWith400AndItsReason(string request)
    {
        (ParseStatus status, RequestRejection rejection, _) = Parse(new ReadOnlySequence<byte>(Requests.Bytes(request)));

        Assert.Equal(ParseStatus.Rejected, status);
        Assert.Equal(RequestRejection.FragmentInTarget, rejection);
        Assert.Equal(HttpStatus.BadRequest, rejection.ToStatus());
        Assert.Equal("A fragment ('#') is not part of a request target.\n", Requests.Text(rejection.ToReason()));
    }

    [Theory]
    [MemberData(nameof(RequestsWithAFragment))]
    public void AFragmentIsRefusedTheSameWayWhereverTheRequestIsSplit(string request)
    {
        byte[] bytes = Requests.Bytes(request);
        for (int cut = 1; cut < bytes.Length; cut++)
        {
            (ParseStatus status, RequestRejection rejection, _) = Parse(Sequences.Split(bytes, cut));

            Assert.Equal(ParseStatus.Rejected, status);
            Assert.Equal(RequestRejection.FragmentInTarget, rejection);
        }
    }

    [Theory]
    [MemberData(nameof(RequestsWithAFragment))]
    public void ARequestLineWithAFragmentStillArrivingWaitsForItsEnd(string request)
    {
        // Until its LF the line may still turn out too long or otherwise wrong: the target alone decides nothing yet.
        byte[] bytes = Requests.Bytes(request);
        int lineEnd = Array.IndexOf(bytes, (byte)'\n');
        for (int length = 1; length <= lineEnd; length++)
        {
            Assert.Equal(ParseStatus.Incomplete, Parse(new ReadOnlySequence<byte>(bytes[..length])).Status);
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(10)]
    [InlineData(40)]
    [InlineData(45)]
    [InlineData(52)]
    public void TheRequestBeforeAFragmentIsParsedIntactAndTheFragmentIsRefusedAfterIt(int cut)
    {
        string before = "GET /queries?queries=2 HTTP/1.1\r\nHost: x\r\n\r\n";
        byte[] batch = Requests.Bytes(before + "GET /plaintext#top" + Fields + "GET /json" + Fields);
        var parser = new HttpParser(new HttpLimits());
        ReadOnlySequence<byte> buffer = cut == 0 ? new ReadOnlySequence<byte>(batch) : Sequences.Split(batch, cut);

        Assert.Equal(ParseStatus.Complete, parser.TryParseHead(buffer, out RequestHead head, out ReadOnlySpan<byte> bytes, out int consumed, out _));
        var request = new HttpRequest(bytes, in head);
        Assert.Equal(before.Length, consumed);
        Assert.Equal("/queries", Requests.Text(request.Path));
        Assert.Equal("queries=2", Requests.Text(request.Query));

        Assert.Equal(ParseStatus.Rejected, parser.TryParseHead(buffer.Slice(consumed), out _, out _, out _, out RequestRejection rejection));
        Assert.Equal(RequestRejection.FragmentInTarget, rejection);
    }

    [Theory]
    [InlineData("GET /a%23b HTTP/1.1\r\nHost: x\r\n\r\n", "/a%23b", "")]
    [InlineData("GET /a?b=%23 HTTP/1.1\r\nHost: x\r\n\r\n", "/a", "b=%23")]
    [InlineData("GET /!a\"b$ HTTP/1.1\r\nHost: x\r\n\r\n", "/!a\"b$", "")]
    [InlineData("GET /!?\"=1 HTTP/1.1\r\nHost: x\r\n\r\n", "/!", "\"=1")]
    [InlineData("POST /%23!\" HTTP/1.1\r\nHost: x\r\n\r\n", "/%23!\"", "")]
    public void AnEncodedHashAndTheVisibleCharactersBelowItAreAccepted(string request, string path, string query)
    {
        // '!' and '"' sort just below '#' and end a GET's fast scan with it: they must still be accepted, on the exact path.
        (ParseStatus status, _, HttpRequestParts parts) = Parse(new ReadOnlySequence<byte>(Requests.Bytes(request)));

        Assert.Equal(ParseStatus.Complete, status);
        Assert.Equal(path, parts.Path);
        Assert.Equal(query, parts.Query);
    }

    private readonly record struct HttpRequestParts(string Path, string Query);

    private static (ParseStatus Status, RequestRejection Rejection, HttpRequestParts Parts) Parse(in ReadOnlySequence<byte> buffer)
    {
        var parser = new HttpParser(new HttpLimits());
        ParseStatus status = parser.TryParseHead(buffer, out RequestHead head, out ReadOnlySpan<byte> bytes, out _, out RequestRejection rejection);
        if (status != ParseStatus.Complete)
        {
            return (status, rejection, default);
        }

        var request = new HttpRequest(bytes, in head);
        return (status, rejection, new HttpRequestParts(Requests.Text(request.Path), Requests.Text(request.Query)));
    }
}
