using System.Buffers;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

internal sealed partial class HttpParser
{
    // RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    private static readonly SearchValues<byte> s_tokenChars =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"u8);

    /// <summary>Parses a whole head: request line, header fields and the closing empty line.</summary>
    internal RequestRejection ParseHead(ReadOnlySpan<byte> headBytes, out RequestHead head)
    {
        head = default;
        int lineEnd = headBytes.IndexOf((byte)'\n');
        if (lineEnd <= 0 || headBytes[lineEnd - 1] != (byte)'\r')
        {
            // A bare LF, or an empty request line.
            return RequestRejection.InvalidRequestLine;
        }

        if (lineEnd - 1 > _limits.MaxRequestLineSize)
        {
            return RequestRejection.RequestLineTooLong;
        }

        RequestRejection rejection = ParseRequestLine(headBytes.Slice(0, lineEnd - 1), ref head);
        if (rejection != RequestRejection.None)
        {
            return rejection;
        }

        int fieldsStart = lineEnd + 1;
        if (headBytes.Length - fieldsStart - 2 > _limits.MaxRequestHeadersSize)
        {
            return RequestRejection.HeadersTooLarge;
        }

        return ParseFields(headBytes, fieldsStart, ref head);
    }

    /// <summary>request-line = method SP request-target SP HTTP-version (RFC 9112 §3).</summary>
    private static RequestRejection ParseRequestLine(ReadOnlySpan<byte> line, ref RequestHead head)
    {
        int methodEnd = line.IndexOf((byte)' ');
        if (methodEnd <= 0)
        {
            return methodEnd == 0 ? RequestRejection.InvalidMethod : RequestRejection.InvalidRequestLine;
        }

        ReadOnlySpan<byte> method = line.Slice(0, methodEnd);
        head.Method = ClassifyMethod(method);

        // A registered method is a token already; only another method's characters need checking.
        if (head.Method == HttpMethod.Custom && method.ContainsAnyExcept(s_tokenChars))
        {
            return RequestRejection.InvalidMethod;
        }

        head.MethodLength = methodEnd;

        int targetStart = methodEnd + 1;
        int targetLength = line.Slice(targetStart).IndexOf((byte)' ');
        if (targetLength < 0)
        {
            return RequestRejection.InvalidRequestLine;
        }

        if (targetLength == 0)
        {
            return RequestRejection.InvalidTarget;
        }

        ReadOnlySpan<byte> target = line.Slice(targetStart, targetLength);

        // Visible ASCII only: no controls, spaces, or raw non-ASCII bytes in a request target (RFC 3986 §2).
        if (target.ContainsAnyExceptInRange((byte)0x21, (byte)0x7E))
        {
            return RequestRejection.InvalidTarget;
        }

        RequestRejection rejection = ParseVersion(line.Slice(targetStart + targetLength + 1), ref head);
        if (rejection != RequestRejection.None)
        {
            return rejection;
        }

        head.TargetStart = targetStart;
        head.TargetLength = targetLength;
        return ParseTarget(target, targetStart, ref head);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static RequestRejection ParseVersion(ReadOnlySpan<byte> version, ref RequestHead head)
    {
        if (version.SequenceEqual("HTTP/1.1"u8))
        {
            head.Version = HttpVersion.Http11;
            return RequestRejection.None;
        }

        if (version.SequenceEqual("HTTP/1.0"u8))
        {
            head.Version = HttpVersion.Http10;
            return RequestRejection.None;
        }

        // HTTP-version = "HTTP/" DIGIT "." DIGIT: well-formed but other versions get 505, anything else 400.
        return version.Length == 8 && version.StartsWith("HTTP/"u8) && char.IsAsciiDigit((char)version[5])
            && version[6] == (byte)'.' && char.IsAsciiDigit((char)version[7])
            ? RequestRejection.UnsupportedVersion
            : RequestRejection.InvalidVersion;
    }

    /// <summary>Splits the target into path and query; accepts origin-, absolute-, authority- and asterisk-form (RFC 9112 §3.2).</summary>
    private static RequestRejection ParseTarget(ReadOnlySpan<byte> target, int offset, ref RequestHead head)
    {
        int pathStart = 0;
        if (target[0] != (byte)'/')
        {
            if (target.Length == 1 && target[0] == (byte)'*')
            {
                if (head.Method != HttpMethod.Options)
                {
                    return RequestRejection.InvalidTarget;
                }
            }
            else if (head.Method == HttpMethod.Connect)
            {
                // authority-form: host:port, no path.
                head.PathStart = offset;
                head.PathLength = 0;
                head.QueryStart = -1;
                return RequestRejection.None;
            }
            else
            {
                // absolute-form: scheme "://" authority path-abempty [ "?" query ]; a server MUST accept it.
                int schemeEnd = target.IndexOf("://"u8);
                if (schemeEnd <= 0 || target.Slice(0, schemeEnd).ContainsAnyExcept(s_tokenChars))
                {
                    return RequestRejection.InvalidTarget;
                }

                int authorityStart = schemeEnd + 3;
                int authorityLength = target.Slice(authorityStart).IndexOfAny((byte)'/', (byte)'?');
                pathStart = authorityLength < 0 ? target.Length : authorityStart + authorityLength;
            }
        }

        ReadOnlySpan<byte> pathAndQuery = target.Slice(pathStart);
        int query = pathAndQuery.IndexOf((byte)'?');
        head.PathStart = offset + pathStart;
        if (query < 0)
        {
            head.PathLength = pathAndQuery.Length;
            head.QueryStart = -1;
        }
        else
        {
            head.PathLength = query;
            head.QueryStart = offset + pathStart + query + 1;
            head.QueryLength = pathAndQuery.Length - query - 1;
        }

        return RequestRejection.None;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static HttpMethod ClassifyMethod(ReadOnlySpan<byte> method)
    {
        // Method names are case-sensitive (RFC 9110 §9.1).
        switch (method.Length)
        {
            case 3:
                if (method.SequenceEqual("GET"u8)) return HttpMethod.Get;
                if (method.SequenceEqual("PUT"u8)) return HttpMethod.Put;
                break;
            case 4:
                if (method.SequenceEqual("HEAD"u8)) return HttpMethod.Head;
                if (method.SequenceEqual("POST"u8)) return HttpMethod.Post;
                break;
            case 5:
                if (method.SequenceEqual("PATCH"u8)) return HttpMethod.Patch;
                if (method.SequenceEqual("TRACE"u8)) return HttpMethod.Trace;
                break;
            case 6:
                if (method.SequenceEqual("DELETE"u8)) return HttpMethod.Delete;
                break;
            case 7:
                if (method.SequenceEqual("OPTIONS"u8)) return HttpMethod.Options;
                if (method.SequenceEqual("CONNECT"u8)) return HttpMethod.Connect;
                break;
        }

        return HttpMethod.Custom;
    }
}
