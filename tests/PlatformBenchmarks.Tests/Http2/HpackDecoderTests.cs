using System.Runtime.CompilerServices;
using PlatformBenchmarks.Http.Http2;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// The decoder against RFC 7541 Appendix C's examples, whole, cut at every byte, and a byte at a time; then the
/// invalid inputs, each with its error; then its bounds: the header list limit enforced as it decodes, and a bomb.
/// </summary>
public class HpackDecoderTests
{
    /// <summary>One example of Appendix C: a table size, its blocks in order, and what each decodes to and leaves.</summary>
    public sealed record Example(string Name, int TableSize, IReadOnlyList<(string Block, string[] Fields, string[] Table, int Size)> Blocks)
    {
        public override string ToString() => Name;
    }

    private static readonly string[] s_request1 = [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"];
    private static readonly string[] s_request2 = [.. s_request1, "cache-control: no-cache"];
    private static readonly string[] s_request3 = [":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value"];
    private static readonly string[] s_response1 = [":status: 302", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:21 GMT", "location: https://www.example.com"];
    private static readonly string[] s_response2 = [":status: 307", .. s_response1[1..]];
    private static readonly string[] s_response3 =
    [
        ":status: 200", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:22 GMT", "location: https://www.example.com",
        "content-encoding: gzip", "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
    ];

    private static readonly string[] s_requestTable1 = [":authority: www.example.com"];
    private static readonly string[] s_requestTable2 = ["cache-control: no-cache", .. s_requestTable1];
    private static readonly string[] s_requestTable3 = ["custom-key: custom-value", .. s_requestTable2];
    private static readonly string[] s_responseTable1 = ["location: https://www.example.com", "date: Mon, 21 Oct 2013 20:13:21 GMT", "cache-control: private", ":status: 302"];
    private static readonly string[] s_responseTable2 = [":status: 307", .. s_responseTable1[..3]];
    private static readonly string[] s_responseTable3 =
        ["set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1", "content-encoding: gzip", "date: Mon, 21 Oct 2013 20:13:22 GMT"];

    public static TheoryData<Example> Examples() => new(
        new Example("C.2.1", 4096, [("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", ["custom-key: custom-header"], ["custom-key: custom-header"], 55)]),
        new Example("C.2.2", 4096, [("040c 2f73 616d 706c 652f 7061 7468", [":path: /sample/path"], [], 0)]),
        new Example("C.2.3", 4096, [("1008 7061 7373 776f 7264 0673 6563 7265 74", ["password: secret"], [], 0)]),
        new Example("C.2.4", 4096, [("82", [":method: GET"], [], 0)]),
        new Example("C.3", 4096,
        [
            ("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", s_request1, s_requestTable1, 57),
            ("8286 84be 5808 6e6f 2d63 6163 6865", s_request2, s_requestTable2, 110),
            ("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65", s_request3, s_requestTable3, 164),
        ]),
        new Example("C.4", 4096,
        [
            ("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", s_request1, s_requestTable1, 57),
            ("8286 84be 5886 a8eb 1064 9cbf", s_request2, s_requestTable2, 110),
            ("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf", s_request3, s_requestTable3, 164),
        ]),
        new Example("C.5", 256,
        [
            ("4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768"
                + "7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", s_response1, s_responseTable1, 222),
            ("4803 3330 37c1 c0bf", s_response2, s_responseTable2, 222),
            ("88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153"
                + "444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e"
                + "3d31", s_response3, s_responseTable3, 215),
        ]),
        new Example("C.6", 256,
        [
            ("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8"
                + "e9ae 82ae 43d3", s_response1, s_responseTable1, 222),
            ("4883 640e ffc1 c0bf", s_response2, s_responseTable2, 222),
            ("88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b"
                + "3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07", s_response3, s_responseTable3, 215),
        ]));

    [Theory]
    [MemberData(nameof(Examples))]
    public void AppendixCDecodesToItsFieldsAndTables(Example example)
    {
        var decoder = new HpackDecoder(example.TableSize, 16 * 1024);
        foreach ((string block, string[] fields, string[] table, int size) in example.Blocks)
        {
            (HpackError error, List<(string Name, string Value)> decoded) = Hpack.Decode(decoder, Hpack.Hex(block));

            Assert.Equal(HpackError.None, error);
            Assert.Equal(fields, decoded.Select(field => $"{field.Name}: {field.Value}"));
            Assert.Equal(table, Hpack.Entries(decoder.DynamicTable));
            Assert.Equal(size, decoder.DynamicTable.Size);
        }
    }

    [Theory]
    [MemberData(nameof(Examples))]
    public void AppendixCDecodesTheSameCutAtEveryByte(Example example)
    {
        for (int blockIndex = 0; blockIndex < example.Blocks.Count; blockIndex++)
        {
            byte[] block = Hpack.Hex(example.Blocks[blockIndex].Block);
            for (int cut = 0; cut <= block.Length; cut++)
            {
                // A fresh decoder brought to the state before this block, then the block in two fragments.
                var decoder = new HpackDecoder(example.TableSize, 16 * 1024);
                foreach ((string earlier, _, _, _) in example.Blocks.Take(blockIndex))
                {
                    Assert.Equal(HpackError.None, Hpack.Decode(decoder, Hpack.Hex(earlier)).Error);
                }

                (HpackError error, List<(string Name, string Value)> decoded) = Hpack.Decode(decoder, block, cut);

                Assert.Equal(HpackError.None, error);
                Assert.Equal(example.Blocks[blockIndex].Fields, decoded.Select(field => $"{field.Name}: {field.Value}"));
                Assert.Equal(example.Blocks[blockIndex].Table, Hpack.Entries(decoder.DynamicTable));
            }
        }
    }

    [Theory]
    [MemberData(nameof(Examples))]
    public void AppendixCDecodesTheSameAByteAtATime(Example example)
    {
        var decoder = new HpackDecoder(example.TableSize, 16 * 1024);
        foreach ((string block, string[] fields, string[] table, _) in example.Blocks)
        {
            byte[] bytes = Hpack.Hex(block);
            (HpackError error, List<(string Name, string Value)> decoded) = Hpack.Decode(decoder, bytes, [.. Enumerable.Range(1, bytes.Length - 1)]);

            Assert.Equal(HpackError.None, error);
            Assert.Equal(fields, decoded.Select(field => $"{field.Name}: {field.Value}"));
            Assert.Equal(table, Hpack.Entries(decoder.DynamicTable));
        }
    }

    [Fact]
    public void ANeverIndexedFieldIsHandedOnAsNeverIndexed()
    {
        var decoder = new HpackDecoder(4096, 16 * 1024);
        var recorder = new HpackRecorder();
        // C.2.3's never-indexed literal, then C.2.2's literal without indexing.
        byte[] block = Hpack.Hex("1008 7061 7373 776f 7264 0673 6563 7265 74 040c 2f73 616d 706c 652f 7061 7468");

        Assert.Equal(HpackError.None, decoder.Decode(block, endHeaders: true, ref recorder));
        Assert.Equal([true, false], recorder.NeverIndexed);
        Assert.Equal([0, HpackStaticTable.PathRoot], recorder.StaticNameIndexes);
    }

    [Fact]
    public void ADynamicEntryKeepsTheStaticIndexOfItsName()
    {
        var decoder = new HpackDecoder(4096, 16 * 1024);
        var recorder = new HpackRecorder();

        // C.3.1 adds ":authority: www.example.com" under the static name 1; C.3.2 refers to it as index 62.
        Assert.Equal(HpackError.None, decoder.Decode(Hpack.Hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"), true, ref recorder));
        Assert.Equal(HpackError.None, decoder.Decode(Hpack.Hex("be"), true, ref recorder));
        Assert.Equal(HpackStaticTable.Authority, recorder.StaticNameIndexes[^1]);
    }

    /// <summary>Invalid blocks, each with the error it ends in; all but the list's limit are COMPRESSION_ERROR.</summary>
    public static TheoryData<string, string, string> InvalidBlocks() => new()
    {
        { "80", "index 0", nameof(HpackError.InvalidIndex) },
        { "be", "index 62 with an empty dynamic table", nameof(HpackError.InvalidIndex) },
        { "ff 00", "index 127, past both tables", nameof(HpackError.InvalidIndex) },
        { "7e 03 616263", "literal name index 62, past both tables", nameof(HpackError.InvalidIndex) },
        { "0f 30 03 616263", "literal name index 63 without indexing", nameof(HpackError.InvalidIndex) },
        { "ff ff ff ff ff 0f", "an integer of five continuation bytes", nameof(HpackError.IntegerOverflow) },
        { "ff 80 80 80 80 80 00", "an integer padded with zero continuations", nameof(HpackError.IntegerOverflow) },
        { "82 20", "a size update after a field", nameof(HpackError.SizeUpdateNotAtStart) },
        { "3f e2 1f", "a size update to 4097, above SETTINGS_HEADER_TABLE_SIZE", nameof(HpackError.SizeUpdateTooLarge) },
        { "41 81 ff", "a Huffman value holding EOS's first 8 bits as 8 bits of padding", nameof(HpackError.InvalidHuffman) },
        { "41 84 ff ff ff ff", "a Huffman value holding EOS", nameof(HpackError.InvalidHuffman) },
        { "41 81 00", "a Huffman value padded with zeros", nameof(HpackError.InvalidHuffman) },
        { "40 81 ff 01 61", "a Huffman name holding EOS's first 8 bits", nameof(HpackError.InvalidHuffman) },
        { "41 05 6162", "a value cut short by the block's end", nameof(HpackError.Truncated) },
        { "40", "a literal with no name", nameof(HpackError.Truncated) },
        { "ff", "an index cut short", nameof(HpackError.Truncated) },
        { "41 7f ff ff 03", "a value longer than any header list", nameof(HpackError.StringTooLong) },
        { "40 ff ff ff 03", "a Huffman name longer than any header list", nameof(HpackError.StringTooLong) },
    };

    [Theory]
    [MemberData(nameof(InvalidBlocks))]
    public void AnInvalidBlockEndsInItsError(string block, string why, string error)
    {
        HpackError expected = Enum.Parse<HpackError>(error);
        byte[] bytes = Hpack.Hex(block);
        Assert.True(expected == Hpack.Decode(new HpackDecoder(4096, 16 * 1024), bytes).Error, why);

        // The same error wherever the block is cut.
        for (int cut = 1; cut < bytes.Length; cut++)
        {
            Assert.Equal(expected, Hpack.Decode(new HpackDecoder(4096, 16 * 1024), bytes, cut).Error);
        }
    }

    [Fact]
    public void SizeUpdatesAtTheStartAreApplied()
    {
        var decoder = new HpackDecoder(4096, 16 * 1024);
        Assert.Equal(HpackError.None, Hpack.Decode(decoder, Hpack.Hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d")).Error);
        Assert.Equal(57, decoder.DynamicTable.Size);

        // Two updates (0, then 100) and a field: the first empties the table (§4.3).
        (HpackError error, List<(string Name, string Value)> fields) = Hpack.Decode(decoder, Hpack.Hex("20 3f 45 82"));

        Assert.Equal(HpackError.None, error);
        Assert.Single(fields);
        Assert.Equal(0, decoder.DynamicTable.Count);
        Assert.Equal(100, decoder.DynamicTable.MaxSize);
    }

    [Fact]
    public void AfterThisSideLowersItsTableSizeTheNextBlockMustStartWithAnUpdate()
    {
        var decoder = new HpackDecoder(4096, 16 * 1024);
        decoder.SetAllowedTableSize(1024);

        Assert.Equal(HpackError.SizeUpdateMissing, Hpack.Decode(decoder, Hpack.Hex("82")).Error);

        decoder.SetAllowedTableSize(1024);
        Assert.Equal(HpackError.SizeUpdateTooLarge, Hpack.Decode(decoder, Hpack.Hex("3f e1 1f 82")).Error);

        decoder.SetAllowedTableSize(1024);
        Assert.Equal(HpackError.None, Hpack.Decode(decoder, Hpack.Hex("3f e1 07 82")).Error);
        Assert.Equal(1024, decoder.DynamicTable.MaxSize);
        Assert.Equal(HpackError.None, Hpack.Decode(decoder, Hpack.Hex("82")).Error);
    }

    [Fact]
    public void TheHeaderListLimitCountsNameValueAnd32AndStopsHandingOnFields()
    {
        // ":method: GET" is 7 + 3 + 32 = 42: a limit of 84 takes two, not three.
        var decoder = new HpackDecoder(4096, 84);
        (HpackError error, List<(string Name, string Value)> fields) = Hpack.Decode(decoder, Hpack.Hex("82 82 82"));

        Assert.Equal(HpackError.HeaderListTooLarge, error);
        Assert.Equal(2, fields.Count);

        // The decoder stays in step: the next block decodes, with the limit counted afresh.
        (error, fields) = Hpack.Decode(decoder, Hpack.Hex("82 82"));
        Assert.Equal(HpackError.None, error);
        Assert.Equal(2, fields.Count);
    }

    [Fact]
    public void FieldsPastTheLimitStillReachTheDynamicTable()
    {
        // The second field is past the limit, but it is indexed: the peer's table has it, so ours must.
        var decoder = new HpackDecoder(4096, 50);
        byte[] block = Hpack.Hex("82 400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572");

        Assert.Equal(HpackError.HeaderListTooLarge, Hpack.Decode(decoder, block).Error);
        Assert.Equal(["custom-key: custom-header"], Hpack.Entries(decoder.DynamicTable));
    }

    [Fact]
    public void AnHpackBombCostsNoMoreThanTheLimit()
    {
        // One 4000-byte entry, then 10,000 references to it: 40 MB of header list from 10 kB of block.
        const int limit = 16 * 1024;
        var decoder = new HpackDecoder(4096, limit);
        byte[] bomb = [.. Hpack.Hex("40 01 78 7f a1 1e"), .. Enumerable.Repeat((byte)'x', 4000), .. Enumerable.Repeat((byte)0xBE, 10_000)];
        var counter = new CountingSink();

        HpackError error = decoder.Decode(bomb, endHeaders: true, ref counter);

        Assert.Equal(HpackError.HeaderListTooLarge, error);
        Assert.True(counter.Bytes.Value <= limit, $"{counter.Bytes.Value} bytes handed on");
        Assert.Equal(limit / (4001 + 32), counter.Fields.Value);
    }

    [Fact]
    public void ALongValueInOneByteFragmentsDecodes()
    {
        // A 3000-byte value, then another field, in one-byte fragments (a CONTINUATION a byte).
        var decoder = new HpackDecoder(4096, 16 * 1024);
        byte[] block = [.. Hpack.Hex("01 7f b9 16"), .. Enumerable.Repeat((byte)'v', 3000), 0x82];
        var recorder = new HpackRecorder();
        for (int index = 0; index < block.Length; index++)
        {
            Assert.Equal(HpackError.None, decoder.Decode(block.AsSpan(index, 1), endHeaders: index == block.Length - 1, ref recorder));
        }

        Assert.Equal(2, recorder.Fields.Count);
        Assert.Equal(new string('v', 3000), recorder.Fields[0].Value);
        Assert.Equal(":authority", recorder.Fields[0].Name);
    }

    private readonly struct CountingSink() : IHpackFieldSink
    {
        public StrongBox<int> Bytes { get; } = new();

        public StrongBox<int> Fields { get; } = new();

        public void OnField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, bool neverIndexed)
        {
            Bytes.Value += name.Length + value.Length + 32;
            Fields.Value++;
        }
    }
}
