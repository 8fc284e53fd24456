namespace PlatformBenchmarks.Http;

/// <summary>The status codes this server sends. Each has a preformatted status line in <see cref="HttpResponse"/>.</summary>
public enum HttpStatus : short
{
    Ok = 200,
    BadRequest = 400,
    NotFound = 404,
    MethodNotAllowed = 405,
    RequestTimeout = 408,
    ContentTooLarge = 413,
    UriTooLong = 414,
    UpgradeRequired = 426,
    RequestHeaderFieldsTooLarge = 431,
    InternalServerError = 500,
    NotImplemented = 501,
    ServiceUnavailable = 503,
    HttpVersionNotSupported = 505,
}
