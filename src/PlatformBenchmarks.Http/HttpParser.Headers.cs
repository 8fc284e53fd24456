using System.Buffers;
using System.Buffers.Binary;
using System.Buffers.Text;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text;

namespace PlatformBenchmarks.Http;

internal sealed partial class HttpParser
{
    // RFC 3986 §3.2.2: reg-name = *( unreserved / pct-encoded / sub-delims ), which also covers IPv4address.
    private static readonly SearchValues<byte> s_regNameChars =
        SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=%"u8);

    // RFC 3986 §3.2.2: an IP-literal between the brackets (IPv6 in hex, colons and a dotted tail; or IPvFuture).
    private static readonly SearchValues<byte> s_ipLiteralChars =
        SearchValues.Create("0123456789ABCDEFabcdefvV:.-_~!$&'()*+,;="u8);

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
        public bool ExpectContinue;
    }

    /// <summary>Where a field line's parts are, from the line's start, and what is wrong with it.</summary>
    private readonly record struct FieldLine(int Length, int NameLength, int ValueStart, int ValueLength, RequestRejection Rejection);

    /// <summary>
    /// Finds the field line at the start of <paramref name="rest"/> and checks it in full. Its length (CRLF included)
    /// is 0 when its end is not here yet; when it is rejected, only the length counts.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static FieldLine FindFieldLineExactly(ReadOnlySpan<byte> rest)
    {
        int lineEnd = rest.IndexOf((byte)'\n');
        if (lineEnd < 0)
        {
            return default;
        }

        // field-line = field-name ":" OWS field-value OWS (RFC 9112 §5), then CRLF.
        ReadOnlySpan<byte> line = rest.Slice(0, lineEnd);
        if (line.IsEmpty || line[^1] != (byte)'\r')
        {
            // A bare LF.
            return new FieldLine(lineEnd + 1, 0, 0, 0, RequestRejection.InvalidHeaderLine);
        }

        line = line.Slice(0, line.Length - 1);
        if (!line.IsEmpty && (line[0] == (byte)' ' || line[0] == (byte)'\t'))
        {
            // RFC 9112 §5.2: obs-fold; a server MUST either reject it or replace it, and we reject.
            return new FieldLine(lineEnd + 1, 0, 0, 0, RequestRejection.ObsoleteLineFolding);
        }

        int colon = line.IndexOf((byte)':');
        if (colon <= 0)
        {
            return new FieldLine(lineEnd + 1, 0, 0, 0, RequestRejection.InvalidHeaderLine);
        }

        // Also catches whitespace between the name and the colon, which RFC 9112 §5.1 says MUST be rejected.
        if (line.Slice(0, colon).ContainsAnyExcept(s_tokenChars))
        {
            return new FieldLine(lineEnd + 1, 0, 0, 0, RequestRejection.InvalidHeaderName);
        }

        ReadOnlySpan<byte> afterColon = line.Slice(colon + 1);
        ReadOnlySpan<byte> value = TrimWhitespace(afterColon);
        int valueStart = colon + 1 + (afterColon.Length - afterColon.TrimStart(" \t"u8).Length);
        return IsValidFieldValue(value)
            ? new FieldLine(lineEnd + 1, colon, valueStart, value.Length, RequestRejection.None)
            : new FieldLine(lineEnd + 1, 0, 0, 0, RequestRejection.InvalidHeaderValue);
    }

    private static bool IsValidFieldValue(ReadOnlySpan<byte> value) =>

        // SP and visible ASCII are all valid, and one vectorised range check clears them; only a value with HTAB,
        // obs-text or a control byte needs the exact (slower) set.
        !value.ContainsAnyExceptInRange((byte)0x20, (byte)0x7E) || !value.ContainsAny(s_invalidValueChars);

    /// <summary>
    /// Host = uri-host [ ":" port ] (RFC 9110 §7.2). A server must answer 400 to an invalid one (RFC 9112 §3.2), and an
    /// http URI has a non-empty host (RFC 9110 §4.2.1): so userinfo (<c>user@a</c>), a path, spaces, a list of hosts
    /// and an empty value are refused.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsValidHost(ReadOnlySpan<byte> value)
    {
        // The usual value, a name or an IPv4 address with or without a port, in two vectorised scans; anything else
        // (an IPv6 literal, pct-encoding, an invalid value) is judged exactly.
        int end = value.IndexOfAnyExcept(s_regNameChars);
        ReadOnlySpan<byte> host = end < 0 ? value : value.Slice(0, end);
        return (!host.IsEmpty && !host.Contains((byte)'%')
                && (end < 0 || (value[end] == (byte)':' && !value.Slice(end + 1).ContainsAnyExceptInRange((byte)'0', (byte)'9'))))
            || IsValidHostExactly(value);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool IsValidHostExactly(ReadOnlySpan<byte> value)
    {
        int hostEnd;
        if (!value.IsEmpty && value[0] == (byte)'[')
        {
            int close = value.IndexOf((byte)']');
            if (close < 2 || value.Slice(1, close - 1).ContainsAnyExcept(s_ipLiteralChars))
            {
                return false;
            }

            hostEnd = close + 1;
        }
        else
        {
            hostEnd = value.IndexOfAnyExcept(s_regNameChars);
            hostEnd = hostEnd < 0 ? value.Length : hostEnd;
            if (hostEnd == 0 || !IsPercentEncodingValid(value.Slice(0, hostEnd)))
            {
                return false;
            }
        }

        // port = *DIGIT
        ReadOnlySpan<byte> rest = value.Slice(hostEnd);
        return rest.IsEmpty || (rest[0] == (byte)':' && !rest.Slice(1).ContainsAnyExceptInRange((byte)'0', (byte)'9'));
    }

    /// <summary>Every '%' starts a pct-encoded octet: '%' HEXDIG HEXDIG.</summary>
    private static bool IsPercentEncodingValid(ReadOnlySpan<byte> host)
    {
        int percent;
        while ((percent = host.IndexOf((byte)'%')) >= 0)
        {
            if (percent + 2 >= host.Length || !char.IsAsciiHexDigit((char)host[percent + 1]) || !char.IsAsciiHexDigit((char)host[percent + 2]))
            {
                return false;
            }

            host = host.Slice(percent + 3);
        }

        return true;
    }

    /// <summary>Records what a field means for framing and persistence. The name is a valid token, the value valid.</summary>
    private static RequestRejection ApplyField(ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, ref FieldFacts facts)
    {
        switch (name.Length)
        {
            case 4 when EqualsIgnoringCase(name, "host"u8):
                facts.HostCount++;
                return IsValidHost(value) ? RequestRejection.None : RequestRejection.InvalidHost;
            case 10 when EqualsIgnoringCase(name, "connection"u8):
                // "keep-alive" alone, as every TFB request sends it, without the call that reads a list.
                if (value.Length == 10 && EqualsIgnoringCase(value, "keep-alive"u8))
                {
                    facts.ConnectionKeepAlive = true;
                }
                else
                {
                    ParseConnection(value, ref facts);
                }

                break;
            case 14 when EqualsIgnoringCase(name, "content-length"u8):
                return ParseContentLength(value, ref facts);
            case 17 when EqualsIgnoringCase(name, "transfer-encoding"u8):
                return ParseTransferEncoding(value, ref facts);
            case 6 when EqualsIgnoringCase(name, "expect"u8):
                // RFC 9110 §10.1.1: the only expectation defined; others are ignored rather than answered with 417.
                facts.ExpectContinue |= Ascii.EqualsIgnoreCase(value, "100-continue"u8);
                break;
        }

        return RequestRejection.None;
    }

    /// <summary>
    /// Compares <paramref name="text"/> with <paramref name="lower"/> (lowercase letters and '-', at least 4 bytes, the
    /// same length) ignoring ASCII case, a word at a time, by setting bit 0x20 of every byte. That bit makes only 'X'
    /// and 'x' equal to 'x', and only '-' and CR equal to '-': exact here because <paramref name="text"/> is a
    /// validated field name or value, in which CR cannot occur.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool EqualsIgnoringCase(ReadOnlySpan<byte> text, ReadOnlySpan<byte> lower)
    {
        Debug.Assert(text.Length == lower.Length && text.Length >= 4, "Only for same-length names of 4 bytes or more.");
        int length = text.Length;
        if (length < 8)
        {
            // Two overlapping 4-byte words cover 4 to 7 bytes.
            return (BinaryPrimitives.ReadUInt32LittleEndian(text) | 0x20202020u) == BinaryPrimitives.ReadUInt32LittleEndian(lower)
                && (BinaryPrimitives.ReadUInt32LittleEndian(text.Slice(length - 4)) | 0x20202020u) == BinaryPrimitives.ReadUInt32LittleEndian(lower.Slice(length - 4));
        }

        const ulong CaseBits = 0x2020202020202020ul;
        for (int i = 0; i < length - 8; i += 8)
        {
            if ((BinaryPrimitives.ReadUInt64LittleEndian(text.Slice(i)) | CaseBits) != BinaryPrimitives.ReadUInt64LittleEndian(lower.Slice(i)))
            {
                return false;
            }
        }

        // The last (possibly overlapping) 8-byte word.
        return (BinaryPrimitives.ReadUInt64LittleEndian(text.Slice(length - 8)) | CaseBits) == BinaryPrimitives.ReadUInt64LittleEndian(lower.Slice(length - 8));
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
            ReadOnlySpan<byte> coding = TrimWhitespace(value[range]);
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
        // The usual value is one option, already trimmed: when it is one of the two that matter, there is no list.
        if (ParseConnectionOption(value, ref facts))
        {
            return;
        }

        foreach (Range range in value.Split((byte)','))
        {
            _ = ParseConnectionOption(TrimWhitespace(value[range]), ref facts);
        }
    }

    /// <summary>Records a "close" or "keep-alive" option (any case); returns whether it was one of them.</summary>
    private static bool ParseConnectionOption(ReadOnlySpan<byte> option, ref FieldFacts facts)
    {
        if (option.Length == 5 && EqualsIgnoringCase(option, "close"u8))
        {
            facts.ConnectionClose = true;
            return true;
        }

        if (option.Length == 10 && EqualsIgnoringCase(option, "keep-alive"u8))
        {
            facts.ConnectionKeepAlive = true;
            return true;
        }

        return false;
    }

    /// <summary>Strips optional whitespace, SP and HTAB (RFC 9110 §5.6.3), from both ends.</summary>
    private static ReadOnlySpan<byte> TrimWhitespace(ReadOnlySpan<byte> value)
    {
        int start = 0;
        while (start < value.Length && (value[start] == (byte)' ' || value[start] == (byte)'\t'))
        {
            start++;
        }

        int end = value.Length;
        while (end > start && (value[end - 1] == (byte)' ' || value[end - 1] == (byte)'\t'))
        {
            end--;
        }

        return value.Slice(start, end - start);
    }

    /// <summary>
    /// Strips SP from both ends of a value known to hold only SP and visible ASCII, so no HTAB: the optional
    /// whitespace of the usual field line (RFC 9110 §5.6.3).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ReadOnlySpan<byte> TrimSpaces(ReadOnlySpan<byte> value)
    {
        int start = 0;
        while (start < value.Length && value[start] == (byte)' ')
        {
            start++;
        }

        int end = value.Length;
        while (end > start && value[end - 1] == (byte)' ')
        {
            end--;
        }

        return value.Slice(start, end - start);
    }

    private static RequestRejection ApplyFieldFacts(ref RequestHead head, in FieldFacts facts)
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
            // Held to the limit of its resource once the head is parsed (HttpConnection.DispatchWithBody), not here.
            head.BodyKind = BodyKind.ContentLength;
            head.ContentLength = facts.ContentLength;
        }

        // RFC 9112 §9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 only when it asked for keep-alive.
        head.KeepAlive = !facts.ConnectionClose
            && (head.Version == HttpVersion.Http11 || facts.ConnectionKeepAlive);

        // A client that waits for "100 Continue" before sending its body gets one (RFC 9110 §10.1.1): HTTP/1.1 only,
        // and only when there is a body to wait for.
        head.ExpectContinue = facts.ExpectContinue && head.Version == HttpVersion.Http11 && head.BodyKind != BodyKind.None;
        return RequestRejection.None;
    }
}
