namespace PlatformBenchmarks.Http;

/// <summary>Why a request was refused. Each reason maps to a status code and a short plain-text explanation.</summary>
internal enum RequestRejection : byte
{
    None,
    InvalidRequestLine,
    InvalidMethod,
    InvalidTarget,
    FragmentInTarget,
    InvalidVersion,
    UnsupportedVersion,
    RequestLineTooLong,
    InvalidHeaderLine,
    InvalidHeaderName,
    InvalidHeaderValue,
    ObsoleteLineFolding,
    HeadersTooLarge,
    TooManyHeaders,
    MissingHost,
    MultipleHosts,
    InvalidHost,
    MethodTooLong,
    InvalidContentLength,
    ConflictingContentLength,
    ContentLengthWithTransferEncoding,
    UnsupportedTransferCoding,
    TransferEncodingInHttp10,
    BodyTooLarge,
    InvalidChunkedBody,
    TrailersTooLarge,
    Timeout,
}

internal static class RequestRejectionExtensions
{
    public static HttpStatus ToStatus(this RequestRejection rejection) => rejection switch
    {
        RequestRejection.UnsupportedVersion => HttpStatus.HttpVersionNotSupported,
        RequestRejection.RequestLineTooLong => HttpStatus.UriTooLong,
        RequestRejection.HeadersTooLarge or RequestRejection.TooManyHeaders or RequestRejection.TrailersTooLarge
            => HttpStatus.RequestHeaderFieldsTooLarge,
        RequestRejection.BodyTooLarge => HttpStatus.ContentTooLarge,
        RequestRejection.Timeout => HttpStatus.RequestTimeout,
        _ => HttpStatus.BadRequest,
    };

    public static ReadOnlySpan<byte> ToReason(this RequestRejection rejection) => rejection switch
    {
        RequestRejection.InvalidRequestLine => "Malformed request line.\n"u8,
        RequestRejection.InvalidMethod => "Malformed method token.\n"u8,
        RequestRejection.InvalidTarget => "Malformed request target.\n"u8,
        RequestRejection.FragmentInTarget => "A fragment ('#') is not part of a request target.\n"u8,
        RequestRejection.InvalidVersion => "Malformed HTTP version.\n"u8,
        RequestRejection.UnsupportedVersion => "Only HTTP/1.1 and HTTP/1.0 are supported.\n"u8,
        RequestRejection.RequestLineTooLong => "Request line too long.\n"u8,
        RequestRejection.InvalidHeaderLine => "Malformed header line.\n"u8,
        RequestRejection.InvalidHeaderName => "Malformed header name.\n"u8,
        RequestRejection.InvalidHeaderValue => "Invalid character in a header value.\n"u8,
        RequestRejection.ObsoleteLineFolding => "Obsolete line folding is not accepted.\n"u8,
        RequestRejection.HeadersTooLarge => "Request header section too large.\n"u8,
        RequestRejection.TooManyHeaders => "Too many request header fields.\n"u8,
        RequestRejection.MissingHost => "HTTP/1.1 requests need a Host header.\n"u8,
        RequestRejection.MultipleHosts => "More than one Host header.\n"u8,
        RequestRejection.InvalidHost => "Invalid Host header: a host and an optional port expected.\n"u8,
        RequestRejection.MethodTooLong => "Method longer than the request line limit.\n"u8,
        RequestRejection.InvalidContentLength => "Invalid Content-Length.\n"u8,
        RequestRejection.ConflictingContentLength => "Conflicting Content-Length values.\n"u8,
        RequestRejection.ContentLengthWithTransferEncoding => "Both Content-Length and Transfer-Encoding.\n"u8,
        RequestRejection.UnsupportedTransferCoding => "Only the chunked transfer coding is supported.\n"u8,
        RequestRejection.TransferEncodingInHttp10 => "Transfer-Encoding in an HTTP/1.0 request.\n"u8,
        RequestRejection.BodyTooLarge => "Request body too large.\n"u8,
        RequestRejection.InvalidChunkedBody => "Malformed chunked body.\n"u8,
        RequestRejection.TrailersTooLarge => "Trailer section too large.\n"u8,
        RequestRejection.Timeout => "The request did not arrive in time.\n"u8,
        _ => "Bad request.\n"u8,
    };
}
