using System.Net.Security;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;
using PlatformBenchmarks.Http.Tls;

namespace PlatformBenchmarks.Http;

public static class HttpApplicationExtensions
{
    /// <summary>
    /// Makes this engine the terminal connection middleware of a Kestrel endpoint: each accepted connection's
    /// transport pipes go to an <see cref="HttpConnection{TApp}"/>, and Kestrel's own HTTP layer never runs. Over TLS, a
    /// connection whose ALPN chose h2 goes to an <see cref="Http2.Http2Connection{TApp}"/> instead (RFC 9113 §3.2).
    /// </summary>
    /// <param name="transportHalfCloses">
    /// Whether the endpoint's transport, when the output completes, sends what is queued and a FIN and keeps the input
    /// readable (RFC 9112 §9.6's order for a server's close). The engine then completes the output before it lingers;
    /// otherwise it keeps the output open until the linger ends. The host knows which transport it chose.
    /// </param>
    /// <param name="loopOf">
    /// The transport loop a connection runs on, from the features its transport gives it; null when the transport has no
    /// loops. The engine knows no transport: the host, which chose it, reads the loop.
    /// </param>
    public static ListenOptions UseHttpApplication<TApp>(this ListenOptions listenOptions, TApp application, HttpServerContext context, bool transportHalfCloses, Func<ConnectionContext, ConnectionLoop>? loopOf = null)
        where TApp : struct, IHttpApplication
    {
        ArgumentNullException.ThrowIfNull(listenOptions);
        listenOptions.Use(_ => connection => NegotiatedH2(connection) is { } alpn
            ? RunHttp2OverTls(application, context, connection, alpn, loopOf)
            : new HttpConnection<TApp>(
                application,
                connection.Transport,
                context,
                transportHalfCloses,
                closeRequested: connection.Features.Get<IConnectionLifetimeNotificationFeature>()?.ConnectionClosedRequested ?? default,
                loop: loopOf is null ? default : loopOf(connection)).ExecuteAsync());
        return listenOptions;
    }

    /// <summary>The TLS layer's ALPN feature when it chose h2; null for HTTP/1.1 (another protocol, none, or no TLS).</summary>
    private static ITlsApplicationProtocolFeature? NegotiatedH2(ConnectionContext connection) =>
        connection.Features.Get<ITlsApplicationProtocolFeature>() is { } alpn
            && alpn.ApplicationProtocol.Span.SequenceEqual(SslApplicationProtocol.Http2.Protocol.Span) ? alpn : null;

    /// <summary>
    /// h2 negotiated by ALPN: the HTTP/2 codec, which expects the client preface at once (§3.2), unless the TLS negotiated
    /// is one HTTP/2 refuses (§9.2.2), which gets INADEQUATE_SECURITY.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Task RunHttp2OverTls<TApp>(TApp application, HttpServerContext context, ConnectionContext connection, ITlsApplicationProtocolFeature alpn, Func<ConnectionContext, ConnectionLoop>? loopOf)
        where TApp : struct, IHttpApplication
    {
        if (alpn is TlsConnectionFeature { MeetsHttp2Requirements: false })
        {
            return Http2.Http2SecurityRefusal.RefuseAsync(connection.Transport);
        }

        return RunHttp2(application, context, connection, loopOf);
    }

    private static Task RunHttp2<TApp>(TApp application, HttpServerContext context, ConnectionContext connection, Func<ConnectionContext, ConnectionLoop>? loopOf)
        where TApp : struct, IHttpApplication => new Http2.Http2Connection<TApp>(
            application,
            connection.Transport,
            context,
            loop: loopOf is null ? default : loopOf(connection),
            closeRequested: connection.Features.Get<IConnectionLifetimeNotificationFeature>()?.ConnectionClosedRequested ?? default).ExecuteAsync();

    /// <summary>
    /// Makes this engine's HTTP/2 codec the terminal connection middleware of a cleartext endpoint that speaks only
    /// HTTP/2 with prior knowledge (RFC 9113 §3.3): each accepted connection goes to an
    /// <see cref="Http2.Http2Connection{TApp}"/>, and anything but the HTTP/2 preface gets a GOAWAY.
    /// </summary>
    public static ListenOptions UseHttp2PriorKnowledge<TApp>(this ListenOptions listenOptions, TApp application, HttpServerContext context, Func<ConnectionContext, ConnectionLoop>? loopOf = null)
        where TApp : struct, IHttpApplication
    {
        ArgumentNullException.ThrowIfNull(listenOptions);
        listenOptions.Use(_ => connection => RunHttp2(application, context, connection, loopOf));
        return listenOptions;
    }
}
