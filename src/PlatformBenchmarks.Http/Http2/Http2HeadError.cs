namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// Why a request's header section is refused. <see cref="TooManyFields"/> is answered with 431; every other is a
/// malformed request (RFC 9113 §8.1.1), a stream error of type PROTOCOL_ERROR.
/// </summary>
internal enum Http2HeadError : byte
{
    None,

    /// <summary>Empty, or not a lowercase token (RFC 9113 §8.2, §8.2.1).</summary>
    InvalidFieldName,

    /// <summary>Holds NUL, CR or LF, or starts or ends with a space or tab (§8.2.1).</summary>
    InvalidFieldValue,

    /// <summary>Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding or Upgrade (§8.2.2).</summary>
    ConnectionSpecificField,

    /// <summary>TE with a value other than "trailers" (§8.2.2).</summary>
    InvalidTe,

    /// <summary>A pseudo-header a request does not have, :status among them (§8.3).</summary>
    UnknownPseudoHeader,

    /// <summary>A pseudo-header after a regular field (§8.3).</summary>
    PseudoHeaderAfterField,

    /// <summary>A pseudo-header twice (§8.3.1).</summary>
    DuplicatePseudoHeader,

    /// <summary>No :method, or, but for CONNECT, no :scheme or :path; CONNECT with :scheme or :path, or without :authority (§8.3.1, §8.5).</summary>
    MissingPseudoHeader,

    /// <summary>:method not a token (RFC 9110 §9.1).</summary>
    InvalidMethod,

    /// <summary>:scheme not a scheme (RFC 3986 §3.1).</summary>
    InvalidScheme,

    /// <summary>:path empty, not starting with '/' ('*' only for OPTIONS), with a fragment or a byte outside visible ASCII (§8.3.1).</summary>
    InvalidPath,

    /// <summary>:authority with userinfo or a byte outside visible ASCII, or a Host field that differs from it (§8.3.1).</summary>
    InvalidAuthority,

    /// <summary>Content-Length not a number, or two that differ (RFC 9110 §8.6).</summary>
    InvalidContentLength,

    /// <summary>More fields than the limit allows: 431.</summary>
    TooManyFields,
}
