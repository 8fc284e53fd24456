using System.Buffers;
using System.Buffers.Text;
using System.Text;

namespace PlatformBenchmarks.Http;

internal sealed partial class HttpParser
{
    // RFC 9110 §5.5: a field value is VCHAR, obs-text, SP and HTAB; every other control byte (CR and LF included) is invalid.
    private static readonly SearchValues<byte> s_invalidValueChars = SearchValues.Create(
        "\0\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u000A\u000B\u000C\u000D\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F\u007F"u8);

    /// <summary>The facts about the fields that decide framing and persistence, gathered while parsing them.</summary>
    private struct FieldFacts
    {
        public int HostCount;
        public long ContentLength;
        public bool HasContentLength;
        public int ChunkedCount;
        public bool HasTransferEncoding;
        public bool ConnectionClose;
        public bool ConnectionKeepAlive;
    }

    /// <summary>Parses the field lines from <paramref name="start"/> up to the closing empty line.</summary>
    private RequestRejection ParseFields(ReadOnlySpan<byte> headBytes, int start, ref RequestHead head)
    {
        var facts = default(FieldFacts);
        ReadOnlySpan<byte> rest = headBytes.Slice(start);
        int count = 0;
        while (true)
        {
            int lineEnd = rest.IndexOf((byte)'\n');

            // The head always ends with CRLF CRLF, so a line end is always found.
            if (lineEnd <= 0 || rest[lineEnd - 1] != (byte)'\r')
            {
                return RequestRejection.InvalidHeaderLine;
            }

            if (lineEnd == 1)
            {
                break;
            }

            if (++count > _limits.MaxRequestHeaderCount)
            {
                return RequestRejection.TooManyHeaders;
            }

            RequestRejection rejection = ParseField(rest.Slice(0, lineEnd - 1), ref facts);
            if (rejection != RequestRejection.None)
            {
                return rejection;
            }

            rest = rest.Slice(lineEnd + 1);
        }

        head.HeaderCount = count;
        return ApplyFieldFacts(ref head, in facts);
    }

    private static RequestRejection ParseField(ReadOnlySpan<byte> line, ref FieldFacts facts)
    {
        byte first = line[0];
        if (first == (byte)' ' || first == (byte)'\t')
        {
            // RFC 9112 §5.2: obs-fold; a server MUST either reject it or replace it, and we reject.
            return RequestRejection.ObsoleteLineFolding;
        }

        int colon = line.IndexOf((byte)':');
        if (colon <= 0)
        {
            return RequestRejection.InvalidHeaderLine;
        }

        ReadOnlySpan<byte> name = line.Slice(0, colon);

        // Also catches whitespace between the name and the colon, which RFC 9112 §5.1 says MUST be rejected.
        if (name.ContainsAnyExcept(s_tokenChars))
        {
            return RequestRejection.InvalidHeaderName;
        }

        ReadOnlySpan<byte> value = line.Slice(colon + 1).Trim(" \t"u8);
        if (value.ContainsAny(s_invalidValueChars))
        {
            return RequestRejection.InvalidHeaderValue;
        }

        switch (name.Length)
        {
            case 4 when Ascii.EqualsIgnoreCase(name, "Host"u8):
                facts.HostCount++;
                break;
            case 10 when Ascii.EqualsIgnoreCase(name, "Connection"u8):
                ParseConnection(value, ref facts);
                break;
            case 14 when Ascii.EqualsIgnoreCase(name, "Content-Length"u8):
                return ParseContentLength(value, ref facts);
            case 17 when Ascii.EqualsIgnoreCase(name, "Transfer-Encoding"u8):
                return ParseTransferEncoding(value, ref facts);
        }

        return RequestRejection.None;
    }

    private static RequestRejection ParseContentLength(ReadOnlySpan<byte> value, ref FieldFacts facts)
    {
        // Content-Length = 1*DIGIT (RFC 9110 §8.6); no sign, no list, no overflow.
        if (value.IsEmpty || value.Length > 18 || value.ContainsAnyExceptInRange((byte)'0', (byte)'9')
            || !Utf8Parser.TryParse(value, out long length, out _))
        {
            return RequestRejection.InvalidContentLength;
        }

        if (facts.HasContentLength && facts.ContentLength != length)
        {
            return RequestRejection.ConflictingContentLength;
        }

        facts.HasContentLength = true;
        facts.ContentLength = length;
        return RequestRejection.None;
    }

    private static RequestRejection ParseTransferEncoding(ReadOnlySpan<byte> value, ref FieldFacts facts)
    {
        // Only "chunked", once: any other coding is one this server cannot decode (RFC 9112 §6.1).
        facts.HasTransferEncoding = true;
        foreach (Range range in value.Split((byte)','))
        {
            ReadOnlySpan<byte> coding = value[range].Trim(" \t"u8);
            if (coding.IsEmpty)
            {
                continue;
            }

            if (!Ascii.EqualsIgnoreCase(coding, "chunked"u8))
            {
                return RequestRejection.UnsupportedTransferCoding;
            }

            facts.ChunkedCount++;
        }

        return RequestRejection.None;
    }

    private static void ParseConnection(ReadOnlySpan<byte> value, ref FieldFacts facts)
    {
        foreach (Range range in value.Split((byte)','))
        {
            ReadOnlySpan<byte> option = value[range].Trim(" \t"u8);
            if (Ascii.EqualsIgnoreCase(option, "close"u8))
            {
                facts.ConnectionClose = true;
            }
            else if (Ascii.EqualsIgnoreCase(option, "keep-alive"u8))
            {
                facts.ConnectionKeepAlive = true;
            }
        }
    }

    private RequestRejection ApplyFieldFacts(ref RequestHead head, in FieldFacts facts)
    {
        // RFC 9112 §3.2: exactly one Host in an HTTP/1.1 request.
        if (facts.HostCount != 1 && (head.Version == HttpVersion.Http11 || facts.HostCount > 1))
        {
            return facts.HostCount == 0 ? RequestRejection.MissingHost : RequestRejection.MultipleHosts;
        }

        if (facts.HasTransferEncoding)
        {
            // RFC 9112 §6.1 and §6.3: both framings at once, or Transfer-Encoding in HTTP/1.0, is faulty framing.
            if (facts.HasContentLength)
            {
                return RequestRejection.ContentLengthWithTransferEncoding;
            }

            if (head.Version == HttpVersion.Http10)
            {
                return RequestRejection.TransferEncodingInHttp10;
            }

            if (facts.ChunkedCount != 1)
            {
                return RequestRejection.UnsupportedTransferCoding;
            }

            head.BodyKind = BodyKind.Chunked;
        }
        else if (facts.HasContentLength && facts.ContentLength > 0)
        {
            if (facts.ContentLength > _limits.MaxRequestBodySize)
            {
                return RequestRejection.BodyTooLarge;
            }

            head.BodyKind = BodyKind.ContentLength;
            head.ContentLength = facts.ContentLength;
        }

        // RFC 9112 §9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 only when it asked for keep-alive.
        head.KeepAlive = !facts.ConnectionClose
            && (head.Version == HttpVersion.Http11 || facts.ConnectionKeepAlive);
        return RequestRejection.None;
    }
}
