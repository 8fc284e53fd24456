namespace PlatformBenchmarks.Http.Http2;

/// <summary>The static table of RFC 7541 Appendix A: 61 entries, indexed from 1.</summary>
internal static class HpackStaticTable
{
    public const int Count = 61;

    // Indexes a codec names directly (RFC 7541 Appendix A).
    public const int Authority = 1;
    public const int MethodGet = 2;
    public const int MethodPost = 3;
    public const int PathRoot = 4;
    public const int PathIndexHtml = 5;
    public const int SchemeHttp = 6;
    public const int SchemeHttps = 7;
    public const int Status200 = 8;
    public const int Status204 = 9;
    public const int Status206 = 10;
    public const int Status304 = 11;
    public const int Status400 = 12;
    public const int Status404 = 13;
    public const int Status500 = 14;
    public const int ContentLength = 28;
    public const int ContentType = 31;
    public const int Date = 33;
    public const int Server = 54;
    public const int Allow = 22;
    public const int ContentEncoding = 26;
    public const int Vary = 59;

    private static readonly byte[][] s_names =
    [
        [],
        ":authority"u8.ToArray(), ":method"u8.ToArray(), ":method"u8.ToArray(), ":path"u8.ToArray(), ":path"u8.ToArray(),
        ":scheme"u8.ToArray(), ":scheme"u8.ToArray(), ":status"u8.ToArray(), ":status"u8.ToArray(), ":status"u8.ToArray(),
        ":status"u8.ToArray(), ":status"u8.ToArray(), ":status"u8.ToArray(), ":status"u8.ToArray(), "accept-charset"u8.ToArray(),
        "accept-encoding"u8.ToArray(), "accept-language"u8.ToArray(), "accept-ranges"u8.ToArray(), "accept"u8.ToArray(),
        "access-control-allow-origin"u8.ToArray(), "age"u8.ToArray(), "allow"u8.ToArray(), "authorization"u8.ToArray(),
        "cache-control"u8.ToArray(), "content-disposition"u8.ToArray(), "content-encoding"u8.ToArray(),
        "content-language"u8.ToArray(), "content-length"u8.ToArray(), "content-location"u8.ToArray(),
        "content-range"u8.ToArray(), "content-type"u8.ToArray(), "cookie"u8.ToArray(), "date"u8.ToArray(), "etag"u8.ToArray(),
        "expect"u8.ToArray(), "expires"u8.ToArray(), "from"u8.ToArray(), "host"u8.ToArray(), "if-match"u8.ToArray(),
        "if-modified-since"u8.ToArray(), "if-none-match"u8.ToArray(), "if-range"u8.ToArray(), "if-unmodified-since"u8.ToArray(),
        "last-modified"u8.ToArray(), "link"u8.ToArray(), "location"u8.ToArray(), "max-forwards"u8.ToArray(),
        "proxy-authenticate"u8.ToArray(), "proxy-authorization"u8.ToArray(), "range"u8.ToArray(), "referer"u8.ToArray(),
        "refresh"u8.ToArray(), "retry-after"u8.ToArray(), "server"u8.ToArray(), "set-cookie"u8.ToArray(),
        "strict-transport-security"u8.ToArray(), "transfer-encoding"u8.ToArray(), "user-agent"u8.ToArray(), "vary"u8.ToArray(),
        "via"u8.ToArray(), "www-authenticate"u8.ToArray(),
    ];

    private static readonly byte[][] s_values = BuildValues();

    /// <summary>The name of entry <paramref name="index"/> (1 to <see cref="Count"/>).</summary>
    public static ReadOnlySpan<byte> Name(int index) => s_names[index];

    /// <summary>The value of entry <paramref name="index"/> (1 to <see cref="Count"/>); empty for most.</summary>
    public static ReadOnlySpan<byte> Value(int index) => s_values[index];

    /// <summary>The index of the entry that holds exactly <c>:status</c> <paramref name="status"/>, or 0.</summary>
    public static int StatusIndex(int status) => status switch
    {
        200 => Status200,
        204 => Status204,
        206 => Status206,
        304 => Status304,
        400 => Status400,
        404 => Status404,
        500 => Status500,
        _ => 0,
    };

    /// <summary>The lowest index whose name is <paramref name="name"/> (lowercase), or 0 when none is.</summary>
    public static int FindName(ReadOnlySpan<byte> name)
    {
        for (int index = 1; index <= Count; index++)
        {
            if (name.SequenceEqual(s_names[index]))
            {
                return index;
            }
        }

        return 0;
    }

    /// <summary>
    /// The index of the entry with the name of entry <paramref name="nameIndex"/> and <paramref name="value"/>, or 0.
    /// Entries of one name are consecutive (:method, :path, :scheme, :status), so only those after it are compared.
    /// </summary>
    public static int FindEntry(int nameIndex, ReadOnlySpan<byte> value)
    {
        if ((uint)(nameIndex - 1) >= Count)
        {
            return 0;
        }

        for (int index = nameIndex; index <= Count && s_names[index].AsSpan().SequenceEqual(s_names[nameIndex]); index++)
        {
            if (value.SequenceEqual(s_values[index]))
            {
                return index;
            }
        }

        return 0;
    }

    private static byte[][] BuildValues()
    {
        byte[][] values = new byte[Count + 1][];
        Array.Fill(values, []);
        values[MethodGet] = "GET"u8.ToArray();
        values[MethodPost] = "POST"u8.ToArray();
        values[PathRoot] = "/"u8.ToArray();
        values[PathIndexHtml] = "/index.html"u8.ToArray();
        values[SchemeHttp] = "http"u8.ToArray();
        values[SchemeHttps] = "https"u8.ToArray();
        values[Status200] = "200"u8.ToArray();
        values[Status204] = "204"u8.ToArray();
        values[Status206] = "206"u8.ToArray();
        values[Status304] = "304"u8.ToArray();
        values[Status400] = "400"u8.ToArray();
        values[Status404] = "404"u8.ToArray();
        values[Status500] = "500"u8.ToArray();
        values[16] = "gzip, deflate"u8.ToArray();
        return values;
    }
}
