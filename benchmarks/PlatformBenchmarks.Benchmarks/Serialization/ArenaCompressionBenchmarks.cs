using System.Buffers;
using System.IO.Compression;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Benchmarks.Serialization;

/// <summary>
/// Compressing HttpArena's json-compressed bodies (the venue's three: 25 items × 4, 40 × 8, 50 × 6, one per call in
/// turn) at each Brotli quality and window and each gzip level of System.IO.Compression and of libdeflate (when the system
/// has it), to choose the library and levels by the venue's score, requests/s ×
/// (smallest body / our body)². The time per call is BenchmarkDotNet's; the summary's <c>Bytes</c> column is the
/// setting's mean compressed size, computed by the host from the same bodies.
/// </summary>
[MemoryDiagnoser]
[Config(typeof(SizeConfig))]
[BenchmarkCategory(Categories.Serialization)]
public class ArenaCompressionBenchmarks : IDisposable
{
    private byte[][] _bodies = [];
    private byte[] _destination = [];
    private int _next;
    private int _gzipLevel = -1;
    private LibDeflate.GzipCompressor? _libDeflate;
    private int _quality;
    private int _window;

    /// <summary>"brotli q{quality} w{window}", "gzip {level}" (System.IO.Compression) or "libdeflate {level}".</summary>
    [Params("brotli q1 w16", "brotli q3 w16", "brotli q4 w16", "brotli q5 w16", "brotli q5 w22", "brotli q6 w16", "brotli q7 w16", "brotli q9 w16", "brotli q11 w16", "gzip 1", "gzip 4", "gzip 5", "gzip 6", "gzip 9", "libdeflate 1", "libdeflate 4", "libdeflate 5", "libdeflate 6", "libdeflate 7", "libdeflate 9")]
    public string Setting { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        string[] parts = Setting.Split(' ');
        if (parts[0] == "libdeflate")
        {
            _libDeflate = new LibDeflate.GzipCompressor(int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture));
        }
        else if (parts[0] == "gzip")
        {
            _gzipLevel = int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture);
        }
        else
        {
            _quality = int.Parse(parts[1][1..], System.Globalization.CultureInfo.InvariantCulture);
            _window = int.Parse(parts[2][1..], System.Globalization.CultureInfo.InvariantCulture);
        }

        _bodies = Bodies();
        _destination = new byte[BrotliEncoder.GetMaxCompressedLength(_bodies.Max(body => body.Length)) + 1024];
        if (_libDeflate is not null)
        {
            FixtureCheck.That(_libDeflate.MaxCompressedLength(_bodies.Max(body => body.Length)) <= _destination.Length, "libdeflate's bound fits the destination");
        }
    }

    /// <summary>Frees the libdeflate compressor. BenchmarkDotNet derives from benchmark classes, so this one is not sealed.</summary>
    [GlobalCleanup]
    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    protected virtual void Dispose(bool disposing)
    {
        if (disposing)
        {
            _libDeflate?.Dispose();
        }
    }

    /// <summary>The venue's three bodies, uncompressed.</summary>
    private static byte[][] Bodies()
    {
        DatasetItem[] items = ArenaItems.Load().Items;
        return [Body(items, 25, 4), Body(items, 40, 8), Body(items, 50, 6)];
    }

    /// <summary>The mean compressed size of the three bodies at <paramref name="setting"/>.</summary>
    public static int MeanSize(string setting)
    {
        var benchmark = new ArenaCompressionBenchmarks { Setting = setting };
        benchmark.Setup();
        long total = 0;
        for (int i = 0; i < benchmark._bodies.Length; i++)
        {
            total += benchmark.Compress();
        }

        benchmark.Dispose();

        return (int)(total / benchmark._bodies.Length);
    }

    private sealed class SizeConfig : ManualConfig
    {
        public SizeConfig() => AddColumn(new SizeColumn());
    }

    /// <summary>The <c>Bytes</c> column: each case's mean compressed size, which the score needs beside the time.</summary>
    private sealed class SizeColumn : IColumn
    {
        public string Id => nameof(SizeColumn);

        public string ColumnName => "Bytes";

        public bool AlwaysShow => true;

        public ColumnCategory Category => ColumnCategory.Custom;

        public int PriorityInCategory => 0;

        public bool IsNumeric => true;

        public UnitType UnitType => UnitType.Size;

        public string Legend => "Mean compressed size of the venue's three bodies, in bytes";

        public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

        public bool IsAvailable(Summary summary) => true;

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
            MeanSize((string)benchmarkCase.Parameters[nameof(Setting)]).ToString(System.Globalization.CultureInfo.InvariantCulture);

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);
    }

    [Benchmark]
    public int Compress()
    {
        byte[] body = _bodies[_next];
        _next = (_next + 1) % _bodies.Length;
        if (_libDeflate is not null)
        {
            return _libDeflate.Compress(body, _destination);
        }

        if (_gzipLevel >= 0)
        {
            using var output = new MemoryStream(_destination, writable: true);
            using (var gzip = new GZipStream(output, new ZLibCompressionOptions { CompressionLevel = _gzipLevel }, leaveOpen: true))
            {
                gzip.Write(body);
            }

            return (int)output.Position;
        }

        FixtureCheck.That(BrotliEncoder.TryCompress(body, _destination, out int written, _quality, _window), "Brotli fits its bound");
        return written;
    }

    private static byte[] Body(DatasetItem[] items, int count, long multiplier)
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            ItemsJson.Write(writer, items.AsSpan(0, count), multiplier);
        }

        return buffer.WrittenSpan.ToArray();
    }
}
