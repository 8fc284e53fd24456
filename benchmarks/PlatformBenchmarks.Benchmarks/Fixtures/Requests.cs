using System.Buffers;

namespace PlatformBenchmarks.Benchmarks.Fixtures;

/// <summary>The single requests the parsing benchmarks run on.</summary>
public enum RequestKind
{
    /// <summary>TFB's plaintext request exactly as wrk sends it.</summary>
    Plaintext,

    /// <summary>TFB's json request exactly as wrk sends it.</summary>
    Json,

    /// <summary>A browser navigation: many fields, a query string and a long Cookie.</summary>
    Browser,
}

/// <summary>How a fixture's bytes are laid out in the <see cref="ReadOnlySequence{T}"/> handed to a parser.</summary>
public enum BufferLayout
{
    /// <summary>One segment: the common case, a whole read in one receive buffer.</summary>
    SingleSegment,

    /// <summary>Several segments cut at <see cref="RequestFixture.SplitPoints"/>: a request that arrived across reads or buffer blocks.</summary>
    MultiSegment,
}

/// <summary>One or more requests as raw bytes, with what a correct parse of them must find.</summary>
internal sealed class RequestFixture
{
    public RequestFixture(string name, byte[] bytes, int requestCount, string path, int headerCount, int[] splitPoints)
    {
        Name = name;
        Bytes = bytes;
        RequestCount = requestCount;
        Path = path;
        HeaderCount = headerCount;
        SplitPoints = splitPoints;
    }

    public string Name { get; }

    public byte[] Bytes { get; }

    /// <summary>How many request heads <see cref="Bytes"/> holds, back to back.</summary>
    public int RequestCount { get; }

    /// <summary>The path every request in the fixture targets, without the query.</summary>
    public string Path { get; }

    /// <summary>How many header fields each request has.</summary>
    public int HeaderCount { get; }

    /// <summary>Where <see cref="BufferLayout.MultiSegment"/> cuts <see cref="Bytes"/>.</summary>
    public int[] SplitPoints { get; }

    public ReadOnlySequence<byte> ToSequence(BufferLayout layout) => layout == BufferLayout.SingleSegment
        ? new ReadOnlySequence<byte>(Bytes)
        : SegmentedSequence.Create(Bytes, SplitPoints);
}

/// <summary>
/// Every request the benchmarks feed the engine, in one place. The TFB requests are byte for byte what wrk sends
/// during a TFB run (docs/tfb-rules.md §3 and §9): the request line, <c>Host: tfb-server</c> (no port), the Accept value
/// TFB uses for that test, and <c>Connection: keep-alive</c>, nothing else.
/// </summary>
internal static class Requests
{
    /// <summary>wrk's pipeline.lua sends 16 plaintext requests per write.</summary>
    public const int PipelineDepth = 16;

    public static ReadOnlySpan<byte> PlaintextBytes =>
        "GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\nAccept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\nConnection: keep-alive\r\n\r\n"u8;

    public static ReadOnlySpan<byte> JsonBytes =>
        "GET /json HTTP/1.1\r\nHost: tfb-server\r\nAccept: application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\nConnection: keep-alive\r\n\r\n"u8;

    // What a desktop browser sends when navigating to a page of a site it has visited before: client hints,
    // fetch metadata, a long Accept, and a Cookie with analytics, session and consent values (all made up).
    public static ReadOnlySpan<byte> BrowserBytes =>
        ("GET /json?utm_source=newsletter&utm_medium=email&lang=en HTTP/1.1\r\n"u8
        + "Host: tfb-server\r\n"u8
        + "Connection: keep-alive\r\n"u8
        + "sec-ch-ua: \"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\", \"Google Chrome\";v=\"131\"\r\n"u8
        + "sec-ch-ua-mobile: ?0\r\n"u8
        + "sec-ch-ua-platform: \"Linux\"\r\n"u8
        + "Upgrade-Insecure-Requests: 1\r\n"u8
        + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\n"u8
        + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7\r\n"u8
        + "Sec-Fetch-Site: same-origin\r\n"u8
        + "Sec-Fetch-Mode: navigate\r\n"u8
        + "Sec-Fetch-User: ?1\r\n"u8
        + "Sec-Fetch-Dest: document\r\n"u8
        + "Referer: https://tfb-server/plaintext\r\n"u8
        + "Accept-Encoding: gzip, deflate, br, zstd\r\n"u8
        + "Accept-Language: en-GB,en-US;q=0.9,en;q=0.8,fr;q=0.7\r\n"u8
        + "Cookie: sessionid=q8w7e6r5t4y3u2i1o0p9a8s7d6f5g4h3; csrftoken=Zx81Lk2Jh3Gf4Ds5Aq6Wm7En8Rb9Tv0Yc1Ux2Io3Pz4; "u8
        + "theme=dark; _ga=GA1.1.1832745961.1731410023; _ga_7H2K9Q4M1X=GS1.1.1731410023.4.1.1731411876.0.0.0; "u8
        + "consent=necessary%3Dtrue%26analytics%3Dfalse%26ads%3Dfalse; last_visit=2025-11-12T10%3A41%3A07Z\r\n"u8
        + "\r\n"u8);

    public static RequestFixture Plaintext { get; } = Single(nameof(Plaintext), PlaintextBytes, "/plaintext", headerCount: 3);

    public static RequestFixture Json { get; } = Single(nameof(Json), JsonBytes, "/json", headerCount: 3);

    public static RequestFixture Browser { get; } = Single(nameof(Browser), BrowserBytes, "/json", headerCount: 16);

    /// <summary>
    /// 16 plaintext requests back to back, as one wrk pipelined write. Cut where the socket's receive buffer could
    /// end: inside the Host field of the 5th request, the Accept value of the 9th and the request line of the 13th.
    /// </summary>
    public static RequestFixture PipelinedPlaintext { get; } = Pipelined(Plaintext, PipelineDepth, splitPoints: [700, 1400, 2000]);

    public static RequestFixture Get(RequestKind kind) => kind switch
    {
        RequestKind.Plaintext => Plaintext,
        RequestKind.Json => Json,
        RequestKind.Browser => Browser,
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, null),
    };

    /// <summary>
    /// A single request, cut for <see cref="BufferLayout.MultiSegment"/> in the three kinds of place a read can end:
    /// inside the request line, inside a field line, and inside the CRLF CRLF that ends the head.
    /// </summary>
    private static RequestFixture Single(string name, ReadOnlySpan<byte> bytes, string path, int headerCount) =>
        new(name, bytes.ToArray(), requestCount: 1, path, headerCount, [11, bytes.Length / 2, bytes.Length - 3]);

    private static RequestFixture Pipelined(RequestFixture request, int depth, int[] splitPoints)
    {
        int length = request.Bytes.Length;
        byte[] batch = new byte[length * depth];
        for (int i = 0; i < depth; i++)
        {
            request.Bytes.CopyTo(batch, i * length);
        }

        foreach (int point in splitPoints)
        {
            // A cut exactly between two requests would leave every head whole in one segment.
            FixtureCheck.That(point % length != 0, $"split point {point} falls between two requests");
        }

        return new RequestFixture($"{request.Name}x{depth}", batch, depth, request.Path, request.HeaderCount, splitPoints);
    }
}
