using System.Text;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// What a request's Accept-Encoding fields say of the codings this server has (RFC 9110 §12.5.3): the weight, 0 to
/// 1000 (q=0 to q=1), of br, gzip (x-gzip too, §8.4.1.3), identity and <c>*</c>, or -1 when not listed. Several fields
/// make one list (RFC 9110 §5.3). A member whose weight is malformed is ignored, as if absent; so are parameters
/// other than q. Read before the handler's first await: the request's bytes are borrowed.
/// </summary>
internal readonly record struct AcceptEncoding(short Brotli, short Gzip, short Identity, short Any, bool Present)
{
    private const short NotListed = -1;

    /// <summary>No Accept-Encoding field: the response is sent as it is (what clients that send none expect).</summary>
    public static AcceptEncoding None { get; } = new(NotListed, NotListed, NotListed, NotListed, Present: false);

    public static AcceptEncoding Read(HttpRequest request)
    {
        AcceptEncoding accepted = None;
        foreach (HttpRequest.Field field in request.Fields)
        {
            if (Ascii.EqualsIgnoreCase(field.Name, "accept-encoding"u8))
            {
                accepted = accepted.Add(field.Value);
            }
        }

        return accepted;
    }

    /// <summary>This list with the members of one more field value.</summary>
    public AcceptEncoding Add(ReadOnlySpan<byte> value)
    {
        AcceptEncoding accepted = this with { Present = true };
        foreach (Range range in value.Split((byte)','))
        {
            ReadOnlySpan<byte> member = value[range].Trim(" \t"u8);
            int semicolon = member.IndexOf((byte)';');
            ReadOnlySpan<byte> coding = (semicolon < 0 ? member : member[..semicolon]).TrimEnd(" \t"u8);
            if (coding.IsEmpty || !TryWeight(semicolon < 0 ? default : member[(semicolon + 1)..], out short weight))
            {
                continue;
            }

            if (Ascii.EqualsIgnoreCase(coding, "br"u8))
            {
                accepted = accepted with { Brotli = weight };
            }
            else if (Ascii.EqualsIgnoreCase(coding, "gzip"u8) || Ascii.EqualsIgnoreCase(coding, "x-gzip"u8))
            {
                accepted = accepted with { Gzip = weight };
            }
            else if (Ascii.EqualsIgnoreCase(coding, "identity"u8))
            {
                accepted = accepted with { Identity = weight };
            }
            else if (coding.SequenceEqual("*"u8))
            {
                accepted = accepted with { Any = weight };
            }
        }

        return accepted;
    }

    /// <summary>
    /// The coding to send, given which codings are available: the acceptable one of highest weight; at equal weights
    /// <paramref name="preferred"/> (Brotli by default, the smaller body, for bodies compressed once ahead of time; the
    /// json route compresses per request and prefers gzip, docs/decisions/0003-httparena-json-and-compression.md), then
    /// the other, then identity; identity, unless listed, only when no coding is acceptable. Without an Accept-Encoding field, identity. When the client
    /// excludes identity and accepts nothing available, identity still: RFC 9110 §12.5.3 lets the server disregard the
    /// field rather than refuse.
    /// </summary>
    public ContentCoding Choose(bool brotliAvailable, bool gzipAvailable, ContentCoding preferred = ContentCoding.Brotli)
    {
        if (!Present)
        {
            return ContentCoding.Identity;
        }

        int brotli = brotliAvailable ? Weight(Brotli, Any) : 0;
        int gzip = gzipAvailable ? Weight(Gzip, Any) : 0;
        // Identity is acceptable unless excluded, by itself or by "*" (RFC 9110 §12.5.3); left unlisted it is the fallback,
        // below any coding the client lists as acceptable.
        int identity = Identity is not NotListed ? Identity : Any is not NotListed ? Any : 1;
        if (preferred == ContentCoding.Gzip && gzip > 0 && gzip >= brotli && gzip >= identity)
        {
            return ContentCoding.Gzip;
        }

        if (brotli > 0 && brotli >= gzip && brotli >= identity)
        {
            return ContentCoding.Brotli;
        }

        return gzip > 0 && gzip >= identity ? ContentCoding.Gzip : ContentCoding.Identity;
    }

    private static int Weight(short listed, short any) => listed is not NotListed ? listed : Math.Max(any, (short)0);

    /// <summary>
    /// The weight of a member from its parameters (after the coding's ';'): q=1 when there is no q; else the qvalue of
    /// RFC 9110 §12.4.2 (<c>0</c> to <c>1</c>, at most three decimals) in thousandths. False when the q is malformed.
    /// </summary>
    internal static bool TryWeight(ReadOnlySpan<byte> parameters, out short weight)
    {
        weight = 1000;
        foreach (Range range in parameters.Split((byte)';'))
        {
            ReadOnlySpan<byte> parameter = parameters[range].Trim(" \t"u8);
            if (parameter.Length < 2 || (parameter[0] | 0x20) != 'q' || parameter[1] != '=')
            {
                continue;
            }

            return TryQValue(parameter[2..], out weight);
        }

        return true;
    }

    private static bool TryQValue(ReadOnlySpan<byte> text, out short weight)
    {
        weight = 0;
        if (text.IsEmpty || text[0] is not ((byte)'0' or (byte)'1') || text.Length > 5 || (text.Length > 1 && text[1] != '.'))
        {
            return false;
        }

        int value = (text[0] - '0') * 1000;
        int scale = 100;
        foreach (byte digit in text[Math.Min(text.Length, 2)..])
        {
            if (!char.IsAsciiDigit((char)digit))
            {
                return false;
            }

            value += (digit - '0') * scale;
            scale /= 10;
        }

        if (value > 1000)
        {
            return false;
        }

        weight = (short)value;
        return true;
    }
}
