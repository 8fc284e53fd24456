using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Http;

internal static class HttpApplicationExtensions
{
    /// <summary>
    /// Makes this engine the terminal connection middleware of a Kestrel endpoint: each accepted connection's
    /// transport pipes go to an <see cref="HttpConnection{TApp}"/>, and Kestrel's own HTTP layer never runs.
    /// </summary>
    public static ListenOptions UseHttpApplication<TApp>(this ListenOptions listenOptions, TApp application, HttpServerContext context)
        where TApp : struct, IHttpApplication
    {
        ArgumentNullException.ThrowIfNull(listenOptions);
        listenOptions.Use(_ => connection => new HttpConnection<TApp>(
            application,
            connection.Transport,
            context,
            transportHalfCloses: connection.Features.Get<IConnectionHalfCloseFeature>() is not null,
            closeRequested: connection.Features.Get<IConnectionLifetimeNotificationFeature>()?.ConnectionClosedRequested ?? default).ExecuteAsync());
        return listenOptions;
    }
}
