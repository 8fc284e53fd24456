using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using PlatformBenchmarks.Http;
using HttpMethod = PlatformBenchmarks.Http.HttpMethod;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>
/// A deliberately plain model of what the parser must decide for a buffer: byte by byte and line by line, with no
/// search tricks, no shortcuts and no state between calls. The parser's tests compare it with <see cref="HttpParser"/>
/// on whole heads, on every truncation of them and on every split. Its rules, in the order they are applied:
/// <list type="number">
/// <item>CRLF pairs before the request line are skipped (RFC 9112 §2.2); nothing but them, or a lone CR after them,
/// is incomplete.</item>
/// <item>A first byte that is not a token character is an invalid method.</item>
/// <item>The request line: too long once more than MaxRequestLineSize + 1 bytes precede its LF (or have arrived without
/// one); then a bare LF, then method SP target SP version, a target holding '#' refused after its characters.</item>
/// <item>Each field line, once its LF is here: the field section's size, then the number of fields, then a bare LF,
/// obs-fold, a missing colon, the name, the value, then what the field means (Content-Length, Transfer-Encoding).
/// A field line still arriving is too large once the section has more than MaxRequestHeadersSize + 2 bytes.</item>
/// <item>After the empty line: Host, the framing, the body size, persistence and Expect.</item>
/// </list>
/// </summary>
internal static partial class HeadModel
{
    private const string TokenChars = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    /// <summary>What the parser must report for <paramref name="buffer"/>, in the form of <see cref="Describe"/>.</summary>
    public static string Decide(byte[] buffer, HttpLimits limits)
    {
        int start = 0;
        while (start + 1 < buffer.Length && buffer[start] == '\r' && buffer[start + 1] == '\n')
        {
            start += 2;
        }

        if (start == buffer.Length || (start == buffer.Length - 1 && buffer[start] == '\r'))
        {
            return Incomplete(start);
        }

        byte[] data = buffer[start..];
        if (!IsToken(data[0]))
        {
            return Rejected(RequestRejection.InvalidMethod);
        }

        // The request line.
        int lineEnd = Array.IndexOf(data, (byte)'\n');
        if (lineEnd < 0)
        {
            return data.Length > limits.MaxRequestLineSize + 1 ? Rejected(LineTooLong(data, limits)) : Incomplete(start);
        }

        if (lineEnd > limits.MaxRequestLineSize + 1)
        {
            return Rejected(LineTooLong(data, limits));
        }

        if (data[lineEnd - 1] != '\r')
        {
            return Rejected(RequestRejection.InvalidRequestLine);
        }

        var head = default(RequestHead);
        RequestRejection rejection = RequestLine(data[..(lineEnd - 1)], ref head);
        if (rejection != RequestRejection.None)
        {
            return Rejected(rejection);
        }

        // The field lines.
        int fieldsStart = lineEnd + 1;
        int position = fieldsStart;
        int count = 0;
        int hosts = 0;
        long? contentLength = null;
        bool transferEncoding = false;
        int chunked = 0;
        bool close = false;
        bool keepAlive = false;
        bool expectContinue = false;
        while (true)
        {
            if (position + 1 < data.Length && data[position] == '\r' && data[position + 1] == '\n')
            {
                position += 2;
                break;
            }

            int end = Array.IndexOf(data, (byte)'\n', position);
            if (end < 0)
            {
                return data.Length - fieldsStart > limits.MaxRequestHeadersSize + 2 ? Rejected(RequestRejection.HeadersTooLarge) : Incomplete(start);
            }

            if (end + 1 - fieldsStart > limits.MaxRequestHeadersSize)
            {
                return Rejected(RequestRejection.HeadersTooLarge);
            }

            if (++count > limits.MaxRequestHeaderCount)
            {
                return Rejected(RequestRejection.TooManyHeaders);
            }

            if (end == position || data[end - 1] != '\r')
            {
                return Rejected(RequestRejection.InvalidHeaderLine);
            }

            string line = Encoding.Latin1.GetString(data, position, end - 1 - position);
            position = end + 1;
            if (line.Length > 0 && (line[0] == ' ' || line[0] == '\t'))
            {
                return Rejected(RequestRejection.ObsoleteLineFolding);
            }

            int colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon <= 0)
            {
                return Rejected(RequestRejection.InvalidHeaderLine);
            }

            string name = line[..colon];
            if (!name.All(c => IsToken((byte)c)))
            {
                return Rejected(RequestRejection.InvalidHeaderName);
            }

            string value = line[(colon + 1)..].Trim(' ', '\t');
            if (!value.All(c => c == '\t' || (c >= 0x20 && c != 0x7F)))
            {
                return Rejected(RequestRejection.InvalidHeaderValue);
            }

            switch (name.ToLowerInvariant())
            {
                case "host":
                    hosts++;
                    if (!HostValue().IsMatch(value))
                    {
                        return Rejected(RequestRejection.InvalidHost);
                    }

                    break;
                case "content-length":
                    if (value.Length is 0 or > 18 || !value.All(char.IsAsciiDigit))
                    {
                        return Rejected(RequestRejection.InvalidContentLength);
                    }

                    long length = long.Parse(value, CultureInfo.InvariantCulture);
                    if (contentLength is not null && contentLength != length)
                    {
                        return Rejected(RequestRejection.ConflictingContentLength);
                    }

                    contentLength = length;
                    break;
                case "transfer-encoding":
                    transferEncoding = true;
                    foreach (string coding in value.Split(',').Select(c => c.Trim(' ', '\t')).Where(c => c.Length > 0))
                    {
                        if (!coding.Equals("chunked", StringComparison.OrdinalIgnoreCase))
                        {
                            return Rejected(RequestRejection.UnsupportedTransferCoding);
                        }

                        chunked++;
                    }

                    break;
                case "connection":
                    foreach (string option in value.Split(',').Select(o => o.Trim(' ', '\t')))
                    {
                        close |= option.Equals("close", StringComparison.OrdinalIgnoreCase);
                        keepAlive |= option.Equals("keep-alive", StringComparison.OrdinalIgnoreCase);
                    }

                    break;
                case "expect":
                    expectContinue |= value.Equals("100-continue", StringComparison.OrdinalIgnoreCase);
                    break;
            }
        }

        // The head as a whole.
        bool http11 = head.Version == HttpVersion.Http11;
        if (hosts > 1 || (hosts == 0 && http11))
        {
            return Rejected(hosts == 0 ? RequestRejection.MissingHost : RequestRejection.MultipleHosts);
        }

        if (transferEncoding)
        {
            if (contentLength is not null)
            {
                return Rejected(RequestRejection.ContentLengthWithTransferEncoding);
            }

            if (!http11)
            {
                return Rejected(RequestRejection.TransferEncodingInHttp10);
            }

            if (chunked != 1)
            {
                return Rejected(RequestRejection.UnsupportedTransferCoding);
            }

            head.BodyKind = BodyKind.Chunked;
        }
        else if (contentLength > 0)
        {
            // The body's limit is its resource's, checked by the connection once the head is parsed.
            head.BodyKind = BodyKind.ContentLength;
            head.ContentLength = contentLength.Value;
        }

        head.KeepAlive = !close && (http11 || keepAlive);
        head.ExpectContinue = expectContinue && http11 && head.BodyKind != BodyKind.None;
        head.HeaderCount = count;
        return Describe(ParseStatus.Complete, start + position, data.AsSpan(0, position), in head, RequestRejection.None);
    }

    /// <summary>One line that says everything a parse reported.</summary>
    public static string Describe(ParseStatus status, int consumed, ReadOnlySpan<byte> headBytes, ref readonly RequestHead h, RequestRejection rejection) => status switch
    {
        ParseStatus.Complete => string.Create(CultureInfo.InvariantCulture,
            $"Complete {consumed} {Convert.ToHexString(headBytes)} {h.Method} {h.Version} {h.KeepAlive} {h.ExpectContinue} {h.BodyKind} {h.MethodLength} {h.TargetStart} {h.TargetLength} {h.PathStart} {h.PathLength} {h.QueryStart} {h.QueryLength} {h.HeaderCount} {h.ContentLength}"),
        ParseStatus.Incomplete => string.Create(CultureInfo.InvariantCulture, $"Incomplete {consumed}"),
        _ => $"Rejected {rejection}",
    };

    private static string Incomplete(int consumed) => string.Create(CultureInfo.InvariantCulture, $"Incomplete {consumed}");

    private static string Rejected(RequestRejection rejection) => $"Rejected {rejection}";

    private static bool IsToken(byte b) => TokenChars.Contains((char)b, StringComparison.Ordinal);

    /// <summary>method SP request-target SP HTTP-version (RFC 9112 §3), and the target's form (§3.2).</summary>
    private static RequestRejection RequestLine(byte[] line, ref RequestHead head)
    {
        string text = Encoding.Latin1.GetString(line);
        int methodEnd = text.IndexOf(' ', StringComparison.Ordinal);
        if (methodEnd < 0)
        {
            return RequestRejection.InvalidRequestLine;
        }

        string method = text[..methodEnd];
        if (!method.All(c => IsToken((byte)c)))
        {
            return RequestRejection.InvalidMethod;
        }

        head.Method = method switch
        {
            "GET" => HttpMethod.Get,
            "PUT" => HttpMethod.Put,
            "HEAD" => HttpMethod.Head,
            "POST" => HttpMethod.Post,
            "PATCH" => HttpMethod.Patch,
            "TRACE" => HttpMethod.Trace,
            "DELETE" => HttpMethod.Delete,
            "OPTIONS" => HttpMethod.Options,
            "CONNECT" => HttpMethod.Connect,
            _ => HttpMethod.Custom,
        };
        head.MethodLength = methodEnd;

        int targetEnd = text.IndexOf(' ', methodEnd + 1);
        if (targetEnd < 0)
        {
            return RequestRejection.InvalidRequestLine;
        }

        string target = text[(methodEnd + 1)..targetEnd];
        if (target.Length == 0 || !target.All(c => c is >= '!' and <= '~'))
        {
            return RequestRejection.InvalidTarget;
        }

        if (target.Contains('#', StringComparison.Ordinal))
        {
            return RequestRejection.FragmentInTarget;
        }

        string version = text[(targetEnd + 1)..];
        if (version is "HTTP/1.1" or "HTTP/1.0")
        {
            head.Version = version == "HTTP/1.1" ? HttpVersion.Http11 : HttpVersion.Http10;
        }
        else
        {
            bool wellFormed = version.Length == 8 && version.StartsWith("HTTP/", StringComparison.Ordinal)
                && char.IsAsciiDigit(version[5]) && version[6] == '.' && char.IsAsciiDigit(version[7]);
            return wellFormed ? RequestRejection.UnsupportedVersion : RequestRejection.InvalidVersion;
        }

        int targetStart = methodEnd + 1;
        head.TargetStart = targetStart;
        head.TargetLength = target.Length;

        // Where the path starts within the target: origin-form at once; asterisk-form (OPTIONS only) and
        // authority-form (CONNECT) have no path; absolute-form after scheme "://" authority.
        int pathStart;
        if (target[0] == '/')
        {
            pathStart = 0;
        }
        else if (target == "*")
        {
            if (head.Method != HttpMethod.Options)
            {
                return RequestRejection.InvalidTarget;
            }

            pathStart = 0;
        }
        else if (head.Method == HttpMethod.Connect)
        {
            head.PathStart = targetStart;
            head.PathLength = 0;
            head.QueryStart = -1;
            return RequestRejection.None;
        }
        else
        {
            int scheme = target.IndexOf("://", StringComparison.Ordinal);
            if (scheme <= 0 || !target[..scheme].All(c => IsToken((byte)c)))
            {
                return RequestRejection.InvalidTarget;
            }

            int authorityEnd = target.IndexOfAny(['/', '?'], scheme + 3);
            pathStart = authorityEnd < 0 ? target.Length : authorityEnd;
        }

        string pathAndQuery = target[pathStart..];
        int query = pathAndQuery.IndexOf('?', StringComparison.Ordinal);
        head.PathStart = targetStart + pathStart;
        head.PathLength = query < 0 ? pathAndQuery.Length : query;
        head.QueryStart = query < 0 ? -1 : targetStart + pathStart + query + 1;
        head.QueryLength = query < 0 ? 0 : pathAndQuery.Length - query - 1;
        return RequestRejection.None;
    }

    /// <summary>A request line over the limit whose method has not ended within it is a method too long (400), else 414.</summary>
    private static RequestRejection LineTooLong(byte[] data, HttpLimits limits) =>
        Array.IndexOf(data, (byte)' ', 0, Math.Min(data.Length, limits.MaxRequestLineSize)) < 0
            ? RequestRejection.MethodTooLong
            : RequestRejection.RequestLineTooLong;

    // Host = uri-host [ ":" port ], uri-host = IP-literal / reg-name (RFC 3986 §3.2.2), the host not empty.
    [GeneratedRegex(@"^(\[[0-9A-Fa-fvV:.\-_~!$&'()*+,;=]+\]|([A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(:[0-9]*)?$")]
    private static partial Regex HostValue();
}
