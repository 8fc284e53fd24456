using System.Text;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>The content codings a response can be sent in.</summary>
internal enum ContentCoding : byte
{
    Identity,
    Gzip,
    Brotli,
}

/// <summary>
/// Chooses a response's content coding from the request's Accept-Encoding fields (RFC 9110 §12.5.3), per request:
/// the coding with the highest q-value the client gives it, ties going to gzip, then br, then identity: gzip at
/// level 6 measured the best score by the venue's formula in this server (docs/decisions/0003-httparena-json-and-compression.md). No Accept-Encoding at all, or an empty one, means identity: the venue requires an uncompressed answer to a
/// client that did not ask. A coding the field does not name gets the q of <c>*</c> when there is one; identity is
/// acceptable unless excluded. When nothing the server has is acceptable, the field is disregarded and identity is sent,
/// as §12.5.3 allows, rather than a 406 the client could do nothing with.
/// </summary>
internal static class ContentNegotiation
{
    // q-values in thousandths (RFC 9110 §12.4.2: at most three decimals); -1: the field does not name the coding.
    private const int Unnamed = -1;
    private const int One = 1000;

    public static ContentCoding Choose(HttpRequest request)
    {
        var q = new Preferences();
        bool any = false;
        foreach (HttpRequest.Field field in request.Fields)
        {
            if (Ascii.EqualsIgnoreCase(field.Name, "accept-encoding"u8))
            {
                any = true;
                Read(field.Value, ref q);
            }
        }

        return any ? q.Choose() : ContentCoding.Identity;
    }

    /// <summary>Reads one field value: <c>#( codings [ weight ] )</c>, each element's q kept under its coding.</summary>
    private static void Read(ReadOnlySpan<byte> value, ref Preferences q)
    {
        foreach (Range range in value.Split((byte)','))
        {
            ReadOnlySpan<byte> element = value[range];
            int semicolon = element.IndexOf((byte)';');
            ReadOnlySpan<byte> coding = (semicolon < 0 ? element : element[..semicolon]).Trim(" \t"u8);
            if (coding.IsEmpty)
            {
                // RFC 9110 §5.6.1: empty list elements are ignored.
                continue;
            }

            int weight = semicolon < 0 ? One : Weight(element[(semicolon + 1)..]);
            if (weight < 0)
            {
                // A malformed weight: the element is ignored, not taken as acceptable.
                continue;
            }

            if (Ascii.EqualsIgnoreCase(coding, "br"u8))
            {
                q.Brotli = Math.Max(q.Brotli, weight);
            }
            else if (Ascii.EqualsIgnoreCase(coding, "gzip"u8) || Ascii.EqualsIgnoreCase(coding, "x-gzip"u8))
            {
                // RFC 9110 §8.4.1.3: x-gzip is gzip.
                q.Gzip = Math.Max(q.Gzip, weight);
            }
            else if (Ascii.EqualsIgnoreCase(coding, "identity"u8))
            {
                q.Identity = Math.Max(q.Identity, weight);
            }
            else if (coding.SequenceEqual("*"u8))
            {
                q.Any = Math.Max(q.Any, weight);
            }
        }
    }

    /// <summary>The weight parameter after a coding's <c>;</c>: <c>q=</c> and a qvalue, in thousandths; -1 when malformed.</summary>
    internal static int Weight(ReadOnlySpan<byte> parameter)
    {
        parameter = parameter.Trim(" \t"u8);
        if (parameter.Length < 3 || (parameter[0] | 0x20) != 'q' || parameter[1] != '=')
        {
            return -1;
        }

        // RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
        ReadOnlySpan<byte> text = parameter[2..];
        if (text[0] is not ((byte)'0' or (byte)'1') || text.Length > 5 || (text.Length > 1 && text[1] != '.'))
        {
            return -1;
        }

        int weight = (text[0] - '0') * One;
        int scale = 100;
        for (int i = 2; i < text.Length; i++, scale /= 10)
        {
            if (!char.IsAsciiDigit((char)text[i]))
            {
                return -1;
            }

            weight += (text[i] - '0') * scale;
        }

        return weight <= One ? weight : -1;
    }

    private struct Preferences()
    {
        public int Brotli = Unnamed;
        public int Gzip = Unnamed;
        public int Identity = Unnamed;
        public int Any = Unnamed;

        public readonly ContentCoding Choose()
        {
            int brotli = Brotli != Unnamed ? Brotli : Math.Max(Any, 0);
            int gzip = Gzip != Unnamed ? Gzip : Math.Max(Any, 0);

            // Identity is acceptable unless "identity;q=0", or "*;q=0" without an identity of its own, excludes it.
            int identity = Identity != Unnamed ? Identity : Any == 0 ? 0 : 1;
            if (gzip > 0 && gzip >= brotli && gzip >= identity)
            {
                return ContentCoding.Gzip;
            }

            return brotli > 0 && brotli >= identity ? ContentCoding.Brotli : ContentCoding.Identity;
        }
    }
}
