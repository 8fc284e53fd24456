using System.Text;
using PlatformBenchmarks.Http.Http2;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>A decoder's sink for tests: each field as text, with how it came.</summary>
internal readonly struct HpackRecorder() : IHpackFieldSink
{
    public List<(string Name, string Value)> Fields { get; } = [];

    public List<int> StaticNameIndexes { get; } = [];

    public List<bool> NeverIndexed { get; } = [];

    public void OnField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, bool neverIndexed)
    {
        Fields.Add((Encoding.Latin1.GetString(name), Encoding.Latin1.GetString(value)));
        StaticNameIndexes.Add(staticNameIndex);
        NeverIndexed.Add(neverIndexed);
    }
}

/// <summary>Hex dumps as RFC 7541 Appendix C prints them, and blocks decoded whole or in pieces.</summary>
internal static class Hpack
{
    public static byte[] Hex(string dump) => Convert.FromHexString(dump.Replace(" ", "", StringComparison.Ordinal).Replace("\n", "", StringComparison.Ordinal));

    public static (HpackError Error, List<(string Name, string Value)> Fields) Decode(HpackDecoder decoder, byte[] block, params int[] cuts)
    {
        var recorder = new HpackRecorder();
        int start = 0;
        HpackError error = HpackError.None;
        foreach (int end in cuts.Append(block.Length))
        {
            error = decoder.Decode(block.AsSpan(start, end - start), endHeaders: end == block.Length, ref recorder);
            start = end;
            if (error != HpackError.None)
            {
                break;
            }
        }

        return (error, recorder.Fields);
    }

    /// <summary>The dynamic table's entries, newest first, as "name: value".</summary>
    public static List<string> Entries(HpackDynamicTable table)
    {
        var entries = new List<string>();
        for (int index = 0; index < table.Count; index++)
        {
            table.Get(index, out ReadOnlySpan<byte> name, out ReadOnlySpan<byte> value);
            entries.Add($"{Encoding.Latin1.GetString(name)}: {Encoding.Latin1.GetString(value)}");
        }

        return entries;
    }
}
