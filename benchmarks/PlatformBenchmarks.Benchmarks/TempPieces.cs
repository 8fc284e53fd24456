using System.Buffers;
using BenchmarkDotNet.Attributes;
using PlatformBenchmarks.Benchmarks.Fixtures;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Benchmarks;

[MemoryDiagnoser]
public class TempPieces
{
    private static readonly SearchValues<byte> s_token = SearchValues.Create("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"u8);
    private static readonly SearchValues<byte> s_invalid = SearchValues.Create("\0\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u000A\u000B\u000C\u000D\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F\u007F"u8);
    private byte[] _head = null!;
    private readonly HttpParser _parser = new(new HttpLimits());

    [Params(RequestKind.Plaintext, RequestKind.Browser)]
    public RequestKind Request { get; set; }

    [GlobalSetup]
    public void Setup() => _head = Requests.Get(Request).Bytes;

    [Benchmark] public int EndSearch() => _head.AsSpan().IndexOf("\r\n\r\n"u8);

    [Benchmark] public int Lines()
    {
        ReadOnlySpan<byte> rest = _head;
        int n = 0;
        while (true) { int i = rest.IndexOf((byte)'\n'); if (i <= 1) break; n += i; rest = rest.Slice(i + 1); }
        return n;
    }

    [Benchmark] public int LinesColon()
    {
        ReadOnlySpan<byte> rest = _head;
        int n = 0;
        while (true) { int i = rest.IndexOf((byte)'\n'); if (i <= 1) break; n += rest.Slice(0, i).IndexOf((byte)':'); rest = rest.Slice(i + 1); }
        return n;
    }

    [Benchmark] public int LinesColonToken()
    {
        ReadOnlySpan<byte> rest = _head;
        int n = 0;
        while (true) { int i = rest.IndexOf((byte)'\n'); if (i <= 1) break; int c = rest.Slice(0, i).IndexOf((byte)':'); if (c > 0 && !rest.Slice(0, c).ContainsAnyExcept(s_token)) n++; rest = rest.Slice(i + 1); }
        return n;
    }

    [Benchmark] public int LinesColonTokenValue()
    {
        ReadOnlySpan<byte> rest = _head;
        int n = 0;
        while (true) { int i = rest.IndexOf((byte)'\n'); if (i <= 1) break; int c = rest.Slice(0, i).IndexOf((byte)':'); if (c > 0 && !rest.Slice(0, c).ContainsAnyExcept(s_token)) { var v = rest.Slice(c + 1, i - c - 2).Trim(" \t"u8); if (!v.ContainsAny(s_invalid)) n++; } rest = rest.Slice(i + 1); }
        return n;
    }

    [Benchmark] public int LinesColonTokenValueRange()
    {
        ReadOnlySpan<byte> rest = _head;
        int n = 0;
        while (true) { int i = rest.IndexOf((byte)'\n'); if (i <= 1) break; int c = rest.Slice(0, i).IndexOf((byte)':'); if (c > 0 && !rest.Slice(0, c).ContainsAnyExcept(s_token)) { var v = rest.Slice(c + 1, i - c - 2).Trim(" \t"u8); if (!v.ContainsAnyExceptInRange((byte)0x20, (byte)0x7E) || !v.ContainsAny(s_invalid)) n++; } rest = rest.Slice(i + 1); }
        return n;
    }

    [Benchmark] public int ParseHeadOnly() => (int)_parser.ParseHead(_head, out _);

    [Benchmark(Baseline = true)] public int TryParseHead() => _parser.TryParseHead(new ReadOnlySequence<byte>(_head), out _, out _, out int c, out _) == ParseStatus.Complete ? c : -1;
}
