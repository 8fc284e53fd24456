using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace PlatformBenchmarks.Http.Tls;

public static class TlsListenOptionsExtensions
{
    /// <summary>
    /// Puts <paramref name="tls"/> between a Kestrel endpoint's transport and the middleware added after this call (the
    /// codec, <see cref="HttpApplicationExtensions.UseHttpApplication"/>): call it first.
    /// </summary>
    /// <param name="tls">
    /// The TLS layer, asked for when the endpoint's middleware is built, as the server binds it: Kestrel's options are
    /// configured earlier, when the host is built, before the host has checked that the certificate can be read.
    /// </param>
    public static ListenOptions UseTls(this ListenOptions listenOptions, Func<TlsServer> tls)
    {
        ArgumentNullException.ThrowIfNull(listenOptions);
        ArgumentNullException.ThrowIfNull(tls);
        listenOptions.Use(next =>
        {
            TlsServer server = tls();
            return connection => server.OnConnectionAsync(connection, next);
        });
        return listenOptions;
    }
}
