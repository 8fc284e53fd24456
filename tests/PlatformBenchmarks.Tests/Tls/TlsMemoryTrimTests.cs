using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections;
using Microsoft.Extensions.Logging.Testing;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// When the memory of ended handshakes is given back: once after a burst of handshakes has ended and settled, never
/// during one, never twice within the interval, never for handshakes below the burst's threshold. The trim is counted,
/// not run; the clock is a fake one.
/// </summary>
public sealed class TlsMemoryTrimTests
{
    private readonly FakeTimeProvider _time = new();
    private int _inProgress;
    private int _trims;

    [Fact]
    public void ABurstIsTrimmedOnceAfterItEndsAndSettlesNotDuringIt()
    {
        TlsMemoryTrim trim = Create();
        Rise(trim, TlsMemoryTrim.Threshold + 10);
        _time.Advance(TlsMemoryTrim.Interval);
        Assert.Equal(0, _trims);

        Fall(trim, 0);
        Assert.Equal(0, _trims);
        _time.Advance(TlsMemoryTrim.Settle);
        Assert.Equal(1, _trims);

        // Handshakes that end afterwards, and a long quiet, ask nothing more.
        Rise(trim, 3);
        Fall(trim, 0);
        _time.Advance(TlsMemoryTrim.Interval * 5);
        Assert.Equal(1, _trims);
    }

    [Fact]
    public void HandshakesBelowTheThresholdAreNeverTrimmed()
    {
        TlsMemoryTrim trim = Create();
        for (int i = 0; i < 20; i++)
        {
            Rise(trim, TlsMemoryTrim.Threshold - 1);
            Fall(trim, 0);
            _time.Advance(TlsMemoryTrim.Interval);
        }

        Assert.Equal(0, _trims);
    }

    [Fact]
    public void BurstsWithinTheIntervalAreTrimmedOnceItHasPassed()
    {
        TlsMemoryTrim trim = Create();
        Burst(trim);
        _time.Advance(TlsMemoryTrim.Settle);
        Assert.Equal(1, _trims);

        // Two more bursts end within the interval: one trim, when it has passed since the first.
        Burst(trim);
        _time.Advance(TlsMemoryTrim.Settle);
        Burst(trim);
        _time.Advance(TlsMemoryTrim.Settle);
        Assert.Equal(1, _trims);
        _time.Advance(TlsMemoryTrim.Interval - (2 * TlsMemoryTrim.Settle) - TimeSpan.FromMilliseconds(1));
        Assert.Equal(1, _trims);
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Equal(2, _trims);
        _time.Advance(TlsMemoryTrim.Interval * 3);
        Assert.Equal(2, _trims);
    }

    [Fact]
    public void ABurstThatResumesBeforeTheTrimIsTrimmedAfterItsNewEnd()
    {
        TlsMemoryTrim trim = Create();
        Burst(trim);
        Rise(trim, TlsMemoryTrim.Threshold);
        _time.Advance(TlsMemoryTrim.Settle);
        Assert.Equal(0, _trims);

        Fall(trim, TlsMemoryTrim.LowMark);
        _time.Advance(TlsMemoryTrim.Settle);
        Assert.Equal(1, _trims);
    }

    [Fact]
    public void ALibcWithoutTheTrimEndsTrimmingForGood()
    {
        var trim = new TlsMemoryTrim(_time, () => _inProgress, () =>
        {
            _trims++;
            return false;
        });
        Burst(trim);
        _time.Advance(TlsMemoryTrim.Settle);
        Burst(trim);
        _time.Advance(TlsMemoryTrim.Interval * 2);
        Assert.Equal(1, _trims);
    }

    [Fact]
    public async Task AFloodOfAbandonedHandshakesIsTrimmedOnceAfterTheServerClosedThem()
    {
        using var certificate = TestCertificate.Create();
        var timeout = TimeSpan.FromSeconds(30);
        var tls = new TlsServer(
            TlsCertificateFiles.Load(certificate.CertificatePath, certificate.KeyPath),
            new TlsOptions { HandshakeTimeout = timeout, CertificatePath = certificate.CertificatePath, KeyPath = certificate.KeyPath },
            _time,
            new FakeLogger(),
            () =>
            {
                Interlocked.Increment(ref _trims);
                return true;
            });

        // The start of a ClientHello announcing a 512-byte record, and no more: the handshake waits for the rest.
        byte[] partialHello = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc];
        List<Task> connections = [];
        for (int i = 0; i < TlsMemoryTrim.Threshold + 8; i++)
        {
            var input = new Pipe();
            var output = new Pipe();
            await input.Writer.WriteAsync(partialHello);
            var connection = new DefaultConnectionContext($"c{i}", new DuplexPipe(input.Reader, output.Writer), new DuplexPipe(output.Reader, input.Writer));
            connections.Add(tls.OnConnectionAsync(connection, _ => Task.CompletedTask));
        }

        Assert.Equal(TlsMemoryTrim.Threshold + 8, tls.HandshakesInProgress);
        _time.Advance(TlsMemoryTrim.Interval);
        Assert.Equal(0, Volatile.Read(ref _trims));

        _time.Advance(timeout - TlsMemoryTrim.Interval);
        await Task.WhenAll(connections).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(0, tls.HandshakesInProgress);
        Assert.Equal(0, Volatile.Read(ref _trims));
        _time.Advance(TlsMemoryTrim.Settle);
        Assert.Equal(1, Volatile.Read(ref _trims));
    }

    private TlsMemoryTrim Create() => new(_time, () => _inProgress, () =>
    {
        _trims++;
        return true;
    });

    private void Burst(TlsMemoryTrim trim)
    {
        Rise(trim, TlsMemoryTrim.Threshold);
        Fall(trim, 0);
    }

    private void Rise(TlsMemoryTrim trim, int to)
    {
        while (_inProgress < to)
        {
            trim.Started(++_inProgress);
        }
    }

    private void Fall(TlsMemoryTrim trim, int to)
    {
        while (_inProgress > to)
        {
            trim.Ended(--_inProgress);
        }
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
