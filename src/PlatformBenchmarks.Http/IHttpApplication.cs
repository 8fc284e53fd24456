namespace PlatformBenchmarks.Http;

/// <summary>
/// What the engine calls for each request, in order. Implementations are structs so the connection loop, generic
/// over them, calls them without an interface dispatch.
/// </summary>
public interface IHttpApplication
{
    /// <summary>
    /// Answers one request through <paramref name="response"/>. Returns a completed task when the response was written
    /// synchronously; otherwise the engine awaits the task before it reads the next pipelined request, so responses
    /// leave in request order. <paramref name="request"/> must not be used after the first await.
    /// </summary>
    ValueTask ProcessRequest(HttpRequest request, HttpResponse response);

    /// <summary>
    /// The largest body <paramref name="request"/>'s resource takes, asked once its head is parsed, before
    /// <see cref="ProcessRequest"/>, and only of requests with a body: <paramref name="configured"/>
    /// (<see cref="HttpLimits.MaxRequestBodySize"/>) unless the resource sets its own. A Content-Length past it gets 413
    /// without the request reaching the application; a chunked body passing it fails its reads with 413.
    /// </summary>
    long MaxRequestBodySize(HttpRequest request, long configured);
}
