using System.Buffers;
using System.IO.Pipelines;
using System.Net.Security;
using System.Runtime.CompilerServices;
using System.Security.Authentication;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;
using Microsoft.Extensions.Logging;
using PlatformBenchmarks.Http.Tls.OpenSsl;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>
/// The TLS layer between a transport and a codec: a connection middleware that completes the handshake, within
/// <see cref="TlsOptions.HandshakeTimeout"/> on the server's clock and within <see cref="TlsOptions.MaxHandshakes"/>
/// in progress, then hands the next middleware the connection with its transport replaced by the decrypted pipes and
/// ALPN's choice as <see cref="ITlsApplicationProtocolFeature"/>. It knows neither the transport nor the codec: the
/// connection keeps its other features (its loop among them), and a failed handshake closes that connection only.
/// One instance serves every TLS listener of a server (docs/decisions/0016-tls-layer.md).
/// </summary>
public sealed partial class TlsServer
{
    private readonly SslServerAuthenticationOptions _authentication;
    private readonly SslServerAuthenticationOptions _withoutAlpn;
    private readonly ReadOnlyMemory<byte>[] _protocols;
    private readonly TimeProvider _time;
    private readonly TimeSpan _handshakeTimeout;
    private readonly int _maxHandshakes;
    private readonly ILogger _logger;
    private readonly OpenSslContext? _openSsl;
    private readonly TlsMemoryTrim _memoryTrim;
    private int _handshakes;
    private int _atCap;
    private long _refused;

    public TlsServer(SslStreamCertificateContext certificate, TlsOptions options, TimeProvider time, ILogger logger)
        : this(certificate, options, time, logger, () => TlsMemoryTrim.MallocTrim(logger))
    {
    }

    /// <param name="trimMemory">Returns freed memory to the system after a burst of handshakes (<see cref="TlsMemoryTrim"/>).</param>
    internal TlsServer(SslStreamCertificateContext certificate, TlsOptions options, TimeProvider time, ILogger logger, Func<bool> trimMemory)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(time);
        ArgumentNullException.ThrowIfNull(logger);
        _authentication = TlsPolicy.ServerOptions(certificate, options.CipherSuites);
        _withoutAlpn = TlsPolicy.ServerOptions(certificate, options.CipherSuites);
        _withoutAlpn.ApplicationProtocols = null;
        _protocols = [.. _authentication.ApplicationProtocols!.Select(protocol => protocol.Protocol)];
        _time = time;
        _handshakeTimeout = options.HandshakeTimeout;
        _maxHandshakes = options.MaxHandshakes;
        _logger = logger;
        _memoryTrim = new TlsMemoryTrim(time, () => HandshakesInProgress, trimMemory, _maxHandshakes);
        // The same protocols as SslStream's options offer, so both engines choose alike.
        _openSsl = options.Engine == TlsEngine.OpenSsl ? new OpenSslContext(options, ApplicationProtocols) : null;
    }

    /// <summary>Handshakes begun and not yet completed, failed or timed out.</summary>
    public int HandshakesInProgress => Volatile.Read(ref _handshakes);

    /// <summary>The protocols offered in ALPN, most preferred first.</summary>
    public IReadOnlyList<SslApplicationProtocol> ApplicationProtocols => _authentication.ApplicationProtocols!;

    /// <summary>Which engine encrypts this server's connections.</summary>
    public TlsEngine Engine => _openSsl is null ? TlsEngine.SslStream : TlsEngine.OpenSsl;

    internal Task OnConnectionAsync(ConnectionContext connection, ConnectionDelegate next)
        => _openSsl is null ? OnSslStreamConnectionAsync(connection, next) : OnOpenSslConnectionAsync(_openSsl, connection, next);

    private async Task OnSslStreamConnectionAsync(ConnectionContext connection, ConnectionDelegate next)
    {
        IDuplexPipe transport = connection.Transport;
        var ssl = new SslStream(new TransportStream(transport), leaveInnerStreamOpen: true);
        try
        {
            if (await HandshakeAsync(connection, ssl, openSsl: null).ConfigureAwait(false))
            {
                await RunAsync(connection, ssl, transport, next).ConfigureAwait(false);
            }
        }
        finally
        {
            connection.Transport = transport;
            await ssl.DisposeAsync().ConfigureAwait(false);
            await transport.Input.CompleteAsync().ConfigureAwait(false);
            await transport.Output.CompleteAsync().ConfigureAwait(false);
        }
    }

    /// <summary>The handshake of <paramref name="ssl"/> or of <paramref name="openSsl"/>, within the timeout and the cap.</summary>
    private async Task<bool> HandshakeAsync(ConnectionContext connection, SslStream? ssl, OpenSslConnection? openSsl)
    {
        int inProgress = Interlocked.Increment(ref _handshakes);
        if (inProgress > _maxHandshakes)
        {
            Interlocked.Decrement(ref _handshakes);
            Refuse(connection.ConnectionId);
            return false;
        }

        _memoryTrim.Started(inProgress);

        // The timeout runs on the server's clock, so tests drive it; the transport's own end (a reset) ends the wait too.
        using var timeout = new CancellationTokenSource(_handshakeTimeout, _time);
        using CancellationTokenRegistration closed = connection.ConnectionClosed.UnsafeRegister(static state => ((CancellationTokenSource)state!).Cancel(), timeout);
        try
        {
            if (openSsl is not null)
            {
                // OpenSSL's ALPN callback answers a client without an overlap itself: no ClientHello read ahead.
                await openSsl.HandshakeAsync(timeout.Token).ConfigureAwait(false);
                return true;
            }

            SslServerAuthenticationOptions options = await OptionsForAsync(connection.Transport.Input, timeout.Token).ConfigureAwait(false);
            await ssl!.AuthenticateAsServerAsync(options, timeout.Token).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException)
        {
            LogHandshakeTimedOut(_logger, connection.ConnectionId, _handshakeTimeout);
            return false;
        }
        catch (Exception exception) when (exception is AuthenticationException or IOException or ObjectDisposedException or InvalidOperationException)
        {
            // A ClientHello that is garbage, truncated, or asks for nothing this server allows; or a peer gone mid-way.
            LogHandshakeFailed(_logger, connection.ConnectionId, exception.InnerException?.Message ?? exception.Message);
            return false;
        }
        finally
        {
            int left = Interlocked.Decrement(ref _handshakes);
            if (left <= _maxHandshakes / 2 && Volatile.Read(ref _atCap) != 0)
            {
                LeaveCap();
            }

            _memoryTrim.Ended(left);
        }
    }

    /// <summary>
    /// Counts a connection refused at the cap, with a Debug line of its own; the Information line is written once, when
    /// the server begins refusing, so a flood past the cap cannot flood the log (the console writes synchronously).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Refuse(string connectionId)
    {
        Interlocked.Increment(ref _refused);
        LogHandshakeRefused(_logger, connectionId, _maxHandshakes);
        if (Interlocked.CompareExchange(ref _atCap, 1, 0) == 0)
        {
            LogCapReached(_logger, _maxHandshakes);
        }
    }

    /// <summary>
    /// Ends a spell at the cap once the handshakes in progress have fallen to half of it, saying how many connections
    /// were refused: the half, not the cap less one, so that a load hovering at the cap writes two lines, not two per
    /// handshake.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void LeaveCap()
    {
        if (Interlocked.CompareExchange(ref _atCap, 0, 1) == 1)
        {
            long refused = Interlocked.Exchange(ref _refused, 0);
            LogCapLeft(_logger, refused, _maxHandshakes);
        }
    }

    /// <summary>
    /// The options for this client, from its ClientHello read ahead and left unconsumed: a client whose ALPN list names
    /// no protocol of this server's is handshaken without ALPN and gets HTTP/1.1, rather than OpenSSL's fatal alert.
    /// </summary>
    private async ValueTask<SslServerAuthenticationOptions> OptionsForAsync(PipeReader input, CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            ReadOnlySequence<byte> received = result.Buffer;
            int size = ClientHello.FirstRecordSize(received);
            bool more = !result.IsCompleted && !result.IsCanceled;
            if (more && (size < 0 || (size > 0 && received.Length < size)))
            {
                input.AdvanceTo(received.Start, received.End);
                continue;
            }

            AlpnOffer offer = size > 0 && received.Length >= size ? ClientHello.ReadAlpn(received.Slice(0, size), _protocols) : AlpnOffer.Unknown;
            // Nothing consumed and nothing examined: the handshake's first read returns these bytes at once.
            input.AdvanceTo(received.Start);
            return offer == AlpnOffer.Excludes ? _withoutAlpn : _authentication;
        }
    }

    private static async Task RunAsync(ConnectionContext connection, SslStream ssl, IDuplexPipe transport, ConnectionDelegate next)
    {
        // Read as Kestrel's HTTPS middleware does: records decrypted into pooled segments; each flush of the codec
        // becomes one write of records. The transport's streams stay open: the TLS layer ends them itself.
        var input = PipeReader.Create(ssl, new StreamPipeReaderOptions(leaveOpen: true));
        var output = new TlsOutput(PipeWriter.Create(ssl, new StreamPipeWriterOptions(leaveOpen: true)), ssl, transport.Output);
        var feature = new TlsConnectionFeature(ssl.NegotiatedApplicationProtocol, TlsPolicy.MeetsHttp2Requirements(ssl.SslProtocol, ssl.NegotiatedCipherSuite));
        connection.Features.Set<ITlsApplicationProtocolFeature>(feature);
        connection.Transport = new DuplexPipe(input, output);
        try
        {
            await next(connection).ConfigureAwait(false);
        }
        finally
        {
            await input.CompleteAsync().ConfigureAwait(false);
            await output.CompleteAsync().ConfigureAwait(false);
        }
    }

    [LoggerMessage(EventId = 20, Level = LogLevel.Debug, Message = "Connection {ConnectionId} closed without a handshake: {MaxHandshakes} TLS handshakes are in progress (Tls:MaxHandshakes).")]
    private static partial void LogHandshakeRefused(ILogger logger, string connectionId, int maxHandshakes);

    [LoggerMessage(EventId = 23, Level = LogLevel.Information, Message = "{MaxHandshakes} TLS handshakes are in progress (Tls:MaxHandshakes): new connections are closed without a handshake until half of them end.")]
    private static partial void LogCapReached(ILogger logger, int maxHandshakes);

    [LoggerMessage(EventId = 24, Level = LogLevel.Information, Message = "TLS handshakes in progress fell to half of {MaxHandshakes} (Tls:MaxHandshakes): {Refused} connections were closed without a handshake while at the cap.")]
    private static partial void LogCapLeft(ILogger logger, long refused, int maxHandshakes);

    [LoggerMessage(EventId = 21, Level = LogLevel.Debug, Message = "Connection {ConnectionId}: the TLS handshake did not complete within {Timeout} (Tls:HandshakeTimeout).")]
    private static partial void LogHandshakeTimedOut(ILogger logger, string connectionId, TimeSpan timeout);

    [LoggerMessage(EventId = 22, Level = LogLevel.Debug, Message = "Connection {ConnectionId}: TLS handshake failed: {Reason}")]
    private static partial void LogHandshakeFailed(ILogger logger, string connectionId, string reason);

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
