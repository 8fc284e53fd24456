using System.IO.Pipelines;

namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// The answer to a client that negotiated h2 over TLS too weak for HTTP/2 (RFC 9113 §9.2.2, a TLS 1.2 suite of Appendix
/// A's blocklist): the server preface, then a connection error of type INADEQUATE_SECURITY, before any request is read.
/// </summary>
internal static class Http2SecurityRefusal
{
    public static async Task RefuseAsync(IDuplexPipe transport)
    {
        try
        {
            var output = new Http2Output(transport.Output);
            // §3.4: the server's first frame is SETTINGS, even on a connection it is about to end.
            output.WriteSettings([]);
            output.WriteGoAway(0, Http2ErrorCode.InadequateSecurity, "TLS 1.2 with a cipher suite HTTP/2 prohibits (RFC 9113 §9.2.2)."u8);
            await transport.Output.FlushAsync().ConfigureAwait(false);
        }
        finally
        {
            await transport.Input.CompleteAsync().ConfigureAwait(false);
            await transport.Output.CompleteAsync().ConfigureAwait(false);
        }
    }
}
