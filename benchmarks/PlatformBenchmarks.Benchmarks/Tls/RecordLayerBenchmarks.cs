using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Http.Tls.OpenSsl;

namespace PlatformBenchmarks.Benchmarks.Tls;

/// <summary>
/// What TLS 1.3's records on the loop cost per record (docs/decisions/0022-tls13-records-on-the-loop.md): sealing a
/// response as the server does, and a client's record sealed and then opened by the server, for TFB's json answer
/// (under 200 bytes) and a full record of 2^14 bytes, on each of the three suites, with the loop's AES-GCM and with
/// OpenSSL's EVP AEAD (docs/decisions/0023-aes-gcm-on-the-loop.md). The secrets are fixed; the keys, nonces and AEAD
/// calls are the server's own.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory(Categories.Tls)]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "GlobalCleanup disposes the record layers.")]
public class RecordLayerBenchmarks
{
    private Tls13RecordLayer _server = null!;
    private Tls13RecordLayer _client = null!;
    private byte[] _plaintext = [];
    private byte[] _record = [];
    private byte[] _opened = [];

    /// <summary>The suite's AEAD: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256.</summary>
    [Params("AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305")]
    public string Suite { get; set; } = "";

    [Params(160, 16384)]
    public int Bytes { get; set; }

    /// <summary>
    /// The AEAD: the loop's AES-GCM (<c>Loop</c>, the default on the AES suites) or OpenSSL's EVP calls; ChaCha20-Poly1305
    /// is OpenSSL's either way.
    /// </summary>
    [Params("Loop", "OpenSsl")]
    public string Aead { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        // The suites' IANA numbers (RFC 8446 §B.4).
        ushort suite = Suite switch
        {
            "AES-128-GCM" => 0x1301,
            "AES-256-GCM" => 0x1302,
            _ => 0x1303,
        };
        int hashLength = suite == 0x1302 ? 48 : 32;
        byte[] clientSecret = [.. Enumerable.Range(1, hashLength).Select(i => (byte)i)];
        byte[] serverSecret = [.. Enumerable.Range(101, hashLength).Select(i => (byte)i)];
        bool openSsl = Aead == "OpenSsl";
        _server = Tls13RecordLayer.Create(suite, clientSecret, serverSecret, writeSequence: 0, openSsl)!;
        // The client's view: it writes under the client's secret, which the server reads under.
        _client = Tls13RecordLayer.Create(suite, serverSecret, clientSecret, writeSequence: 0, openSsl)!;
        _plaintext = new byte[Bytes];
        new Random(42).NextBytes(_plaintext);
        _record = new byte[Bytes + Tls13RecordLayer.Overhead];
        _opened = new byte[Bytes + Tls13RecordLayer.TagLength + 1];

        SealThenOpen();
        FixtureCheck.That(_opened.AsSpan(0, Bytes).SequenceEqual(_plaintext), "the server opens what the client sealed");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _server.Dispose();
        _client.Dispose();
    }

    /// <summary>The server's half of a response: its plaintext copied into the record, sealed in place.</summary>
    [Benchmark(Baseline = true)]
    public int Seal() => _server.Seal(_plaintext, Tls13RecordLayer.ApplicationData, _record);

    /// <summary>A request's round: the client seals its record, the server opens it (each with its own sequence number).</summary>
    [Benchmark]
    public int SealThenOpen()
    {
        int length = _client.Seal(_plaintext, Tls13RecordLayer.ApplicationData, _record);
        TlsAlert alert = _server.Open(_record.AsSpan(0, length), _opened, out byte type, out int opened);
        return alert == TlsAlert.None && type == Tls13RecordLayer.ApplicationData ? opened : -1;
    }
}
