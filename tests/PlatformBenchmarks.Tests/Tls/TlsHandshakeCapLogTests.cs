using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Testing;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// What an operator reads of a flood past <c>Tls:MaxHandshakes</c>: a line when the cap is reached and one when it is
/// left, counting the refused connections, whatever the flood's size; each refused connection only at Debug. Driven
/// over in-memory pipes, with the handshake timeout on a fake clock.
/// </summary>
public sealed class TlsHandshakeCapLogTests : IDisposable
{
    private const int Cap = 32;
    private static readonly TimeSpan s_timeout = TimeSpan.FromSeconds(10);

    // The start of a ClientHello announcing a 512-byte record, and no more: the handshake waits for the rest.
    private static readonly byte[] s_partialHello = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc];

    private readonly TestCertificate _certificate = TestCertificate.Create();
    private readonly FakeTimeProvider _time = new();
    private readonly FakeLogger _logger = new();
    private readonly TlsServer _tls;

    public TlsHandshakeCapLogTests() => _tls = new TlsServer(
        TlsCertificateFiles.Load(_certificate.CertificatePath, _certificate.KeyPath),
        new TlsOptions { MaxHandshakes = Cap, HandshakeTimeout = s_timeout, CertificatePath = _certificate.CertificatePath, KeyPath = _certificate.KeyPath },
        _time,
        _logger);

    public void Dispose() => _certificate.Dispose();

    [Fact]
    public async Task AFloodPastTheCapWritesTwoInformationLinesPerSpellAtTheCapThatCountTheRefusedConnections()
    {
        // Two floods, so the second shows the count starts again and the cap is reported again.
        foreach (int flood in new[] { 3 * Cap, 10 * Cap })
        {
            _logger.Collector.Clear();
            List<Task> connections = [];
            for (int i = 0; i < flood; i++)
            {
                connections.Add(await ConnectAsync($"c{i}"));
            }

            Assert.Equal(Cap, _tls.HandshakesInProgress);
            Assert.Equal(flood - Cap, connections.Count(connection => connection.IsCompleted));
            _time.Advance(s_timeout);
            await Task.WhenAll(connections).WaitAsync(TimeSpan.FromSeconds(30));
            Assert.Equal(0, _tls.HandshakesInProgress);

            IReadOnlyList<FakeLogRecord> lines = _logger.Collector.GetSnapshot();
            Assert.Equal(flood - Cap, lines.Count(line => line.Level == LogLevel.Debug && line.Message.Contains("closed without a handshake", StringComparison.Ordinal)));
            FakeLogRecord[] information = [.. lines.Where(line => line.Level >= LogLevel.Information)];
            Assert.Equal(2, information.Length);
            Assert.Contains($"{Cap} TLS handshakes are in progress", information[0].Message, StringComparison.Ordinal);
            Assert.Contains($"{flood - Cap} connections were closed without a handshake", information[1].Message, StringComparison.Ordinal);
            Assert.Equal((flood - Cap).ToString(System.Globalization.CultureInfo.InvariantCulture), information[1].GetStructuredStateValue("Refused"));
        }
    }

    /// <summary>A connection that has sent the start of a ClientHello, handed to the TLS layer; the task ends with the connection.</summary>
    private async Task<Task> ConnectAsync(string id)
    {
        var input = new Pipe();
        var output = new Pipe();
        await input.Writer.WriteAsync(s_partialHello);
        var connection = new DefaultConnectionContext(id, new DuplexPipe(input.Reader, output.Writer), new DuplexPipe(output.Reader, input.Writer));
        return _tls.OnConnectionAsync(connection, _ => Task.CompletedTask);
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
