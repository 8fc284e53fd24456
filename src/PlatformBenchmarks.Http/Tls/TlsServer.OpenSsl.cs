using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;
using PlatformBenchmarks.Http.Tls.OpenSsl;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>The OpenSSL engine's connection (<see cref="TlsEngine.OpenSsl"/>, docs/decisions/0021-tls-engine.md).</summary>
public sealed partial class TlsServer
{
    /// <summary>
    /// The codec's input is a pipe the receiving side decrypts into; both of its ends resume inline, so the codec runs on
    /// the thread that received the records (the loop), with no scheduling between. Reading pauses at 64 KiB not yet
    /// parsed, as the transport's own input does.
    /// </summary>
    private static readonly PipeOptions s_plaintextOptions = new(
        readerScheduler: PipeScheduler.Inline,
        writerScheduler: PipeScheduler.Inline,
        pauseWriterThreshold: 64 * 1024,
        resumeWriterThreshold: 32 * 1024,
        useSynchronizationContext: false);

    private async Task OnOpenSslConnectionAsync(OpenSslContext context, ConnectionContext connection, ConnectionDelegate next)
    {
        IDuplexPipe transport = connection.Transport;
        OpenSslConnection? tls = null;
        try
        {
            tls = new OpenSslConnection(context, transport);
            if (await HandshakeAsync(connection, ssl: null, tls).ConfigureAwait(false))
            {
                await RunAsync(connection, tls, context, transport, next).ConfigureAwait(false);
            }
        }
        finally
        {
            connection.Transport = transport;
            await transport.Input.CompleteAsync().ConfigureAwait(false);
            await transport.Output.CompleteAsync().ConfigureAwait(false);
            tls?.Dispose();
        }
    }

    private static async Task RunAsync(ConnectionContext connection, OpenSslConnection tls, OpenSslContext context, IDuplexPipe transport, ConnectionDelegate next)
    {
        var plaintext = new Pipe(s_plaintextOptions);
        var output = new OpenSslOutput(tls, transport.Output);
        connection.Features.Set<ITlsApplicationProtocolFeature>(new TlsConnectionFeature(tls.ApplicationProtocol(context.Protocols), tls.MeetsHttp2Requirements()));
        connection.Transport = new DuplexPipe(plaintext.Reader, output);
        Task receiving = tls.ReceiveAsync(plaintext.Writer);
        try
        {
            await next(connection).ConfigureAwait(false);
        }
        finally
        {
            await plaintext.Reader.CompleteAsync().ConfigureAwait(false);
            await output.CompleteAsync().ConfigureAwait(false);
            // The receiving side may wait on the transport for records no one will read: end that wait.
            transport.Input.CancelPendingRead();
            await receiving.ConfigureAwait(false);
        }
    }
}
