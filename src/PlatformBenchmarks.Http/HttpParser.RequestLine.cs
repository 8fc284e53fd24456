using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace PlatformBenchmarks.Http;

internal sealed partial class HttpParser
{
    private const uint GetSpace = 'G' | ('E' << 8) | ('T' << 16) | (' ' << 24);
    private const ushort CrLf = '\r' | ('\n' << 8);

    /// <summary>
    /// What <see cref="ParseRequestLine"/> found: where the field lines start, that the line is not all here yet, or why
    /// it is refused. One <see cref="int"/> wide and returned rather than written through an out parameter, so it comes
    /// back in a register and the caller's locals stay in registers too.
    /// </summary>
    private readonly struct RequestLineResult
    {
        // Above 0: where the field lines start; 0: not all here yet; below 0: the rejection, negated.
        private readonly int _value;

        private RequestLineResult(int value) => _value = value;

        public static RequestLineResult Incomplete => default;

        /// <summary>The line is whole and valid: <see cref="FieldsStart"/> is above 0.</summary>
        public bool IsComplete => _value > 0;

        public bool IsRejected => _value < 0;

        /// <summary>Where the field lines start; meaningful only when <see cref="IsComplete"/>.</summary>
        public int FieldsStart => _value;

        /// <summary>Why the line is refused; <see cref="RequestRejection.None"/> unless <see cref="IsRejected"/>.</summary>
        public RequestRejection Rejection => _value < 0 ? (RequestRejection)(-_value) : RequestRejection.None;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static RequestLineResult FieldsAt(int fieldsStart) => new(fieldsStart);

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static RequestLineResult Rejected(RequestRejection rejection) => new(-(int)rejection);
    }

    /// <summary>
    /// Parses the request line at the start of <paramref name="data"/>. A GET (every TFB request) is parsed without
    /// first searching for the line's end: one search finds the end of the target, which must be followed by
    /// " HTTP/1.1" or " HTTP/1.0" and CRLF. Any other line is checked by <see cref="ParseRequestLineExactly"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private RequestLineResult ParseRequestLine(ReadOnlySpan<byte> data, ref RequestHead head)
    {
        if (data.Length > 4 && BinaryPrimitives.ReadUInt32LittleEndian(data) == GetSpace)
        {
            // The target is visible ASCII (RFC 3986 §2) without '#' (a fragment is never sent, RFC 9110 §7.1), so the
            // scan stops at the first byte of neither, a space if well formed. It scans from '$' (0x24) on, one range
            // compare as before: a '#', and the rare '!' or '"' too, end it early and send the line to the exact path
            // (docs/decisions/0005-fragment-in-target.md).
            const int TargetStart = 4;
            int targetLength = data.Slice(TargetStart).IndexOfAnyExceptInRange((byte)'$', (byte)0x7E);
            int versionStart = TargetStart + targetLength + 1;
            if (targetLength > 0 && data.Length >= versionStart + 10 && data[versionStart - 1] == (byte)' '
                && versionStart + 8 <= _limits.MaxRequestLineSize
                && BinaryPrimitives.ReadUInt16LittleEndian(data.Slice(versionStart + 8)) == CrLf
                && ParseVersion(data.Slice(versionStart, 8), ref head) == RequestRejection.None)
            {
                head.Method = HttpMethod.Get;
                head.MethodLength = 3;
                head.TargetStart = TargetStart;
                head.TargetLength = targetLength;
                RequestRejection target = ParseTarget(data.Slice(TargetStart, targetLength), TargetStart, ref head);
                return target == RequestRejection.None ? RequestLineResult.FieldsAt(versionStart + 10) : RequestLineResult.Rejected(target);
            }

            head = default;
        }

        return ParseRequestLineExactly(data, ref head);
    }

    /// <summary>Any request line, checked in full.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private RequestLineResult ParseRequestLineExactly(ReadOnlySpan<byte> data, ref RequestHead head)
    {
        // A request line starts with a method token (RFC 9112 §3). A first byte that cannot start one (a TLS
        // ClientHello's 0x16 on this plain port, say) is refused now: waiting for a line end would leave such a client
        // hanging until the request timeout.
        if (!s_tokenChars.Contains(data[0]))
        {
            return RequestLineResult.Rejected(RequestRejection.InvalidMethod);
        }

        // The length is judged first, as it is for a line still arriving: a line is too long once MaxRequestLineSize
        // bytes and a CR have come without its LF, whatever follows.
        int lineEnd = data.IndexOf((byte)'\n');
        RequestRejection rejection = lineEnd < 0 ? RequestRejection.None
            : lineEnd - 1 > _limits.MaxRequestLineSize ? LineTooLong(data)
            : data[lineEnd - 1] != (byte)'\r' ? RequestRejection.InvalidRequestLine // a bare LF
            : ParseRequestLineParts(data.Slice(0, lineEnd - 1), ref head);
        return lineEnd < 0 ? RequestLineResult.Incomplete
            : rejection == RequestRejection.None ? RequestLineResult.FieldsAt(lineEnd + 1)
            : RequestLineResult.Rejected(rejection);
    }

    /// <summary>request-line = method SP request-target SP HTTP-version (RFC 9112 §3).</summary>
    private static RequestRejection ParseRequestLineParts(ReadOnlySpan<byte> line, ref RequestHead head)
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

        // No fragment: no form of request-target has one (RFC 9112 §3.2), a client leaves it out (RFC 9110 §7.1), and
        // an invalid request-line gets 400 (RFC 9112 §3). Answering for "/path" instead would answer another resource.
        if (target.Contains((byte)'#'))
        {
            return RequestRejection.FragmentInTarget;
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
    internal static HttpMethod ClassifyMethod(ReadOnlySpan<byte> method)
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
