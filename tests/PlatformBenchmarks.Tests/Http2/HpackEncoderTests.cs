using System.Text;
using PlatformBenchmarks.Http.Http2;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>
/// The encoder writes Appendix C's Huffman examples byte for byte (C.4, and C.6 with a 256-byte table), and whatever
/// it writes the decoder reads back, tables in step.
/// </summary>
public class HpackEncoderTests
{
    [Fact]
    public void TheRequestsOfC4AreEncodedAsTheRfcDoes()
    {
        var encoder = new HpackEncoder(4096);
        Assert.Equal(Hpack.Hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"),
            Encode(encoder, [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"]));
        Assert.Equal(Hpack.Hex("8286 84be 5886 a8eb 1064 9cbf"),
            Encode(encoder, [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache"]));
        Assert.Equal(Hpack.Hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"),
            Encode(encoder, [":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value"]));
    }

    [Fact]
    public void TheResponsesOfC6AreEncodedAsTheRfcDoes()
    {
        var encoder = new HpackEncoder(256);
        Span<byte> update = stackalloc byte[16];
        // The RFC's examples begin after the peer has agreed to 256 bytes; this side announces it once.
        Assert.Equal(Hpack.Hex("3f e1 01"), update[..encoder.BeginBlock(update)].ToArray());

        Assert.Equal(Hpack.Hex("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"),
            Encode(encoder, [":status: 302", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:21 GMT", "location: https://www.example.com"]));
        // The RFC Huffman codes "307" though that is no shorter (3 bytes either way); this encoder keeps it raw, as C.5.2.
        Assert.Equal(Hpack.Hex("4803 3330 37c1 c0bf"),
            Encode(encoder, [":status: 307", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:21 GMT", "location: https://www.example.com"]));
        Assert.Equal(Hpack.Hex("88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"),
            Encode(encoder, [":status: 200", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:22 GMT", "location: https://www.example.com", "content-encoding: gzip", "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"]));
        Assert.Equal(215, encoder.DynamicTable.Size);
    }

    [Theory]
    [InlineData(200, "88")]
    [InlineData(204, "89")]
    [InlineData(404, "8d")]
    [InlineData(500, "8e")]
    [InlineData(405, "08 03 343035")]
    [InlineData(431, "08 03 343331")]
    public void AStatusIsOneByteWhenTheStaticTableHasIt(int status, string expected)
    {
        byte[] destination = new byte[8];
        int written = HpackEncoder.EncodeStatus(status, destination);

        Assert.Equal(Hpack.Hex(expected), destination[..written]);
        (HpackError error, List<(string Name, string Value)> fields) = Hpack.Decode(new HpackDecoder(4096, 1024), destination[..written]);
        Assert.Equal(HpackError.None, error);
        Assert.Equal((":status", status.ToString(System.Globalization.CultureInfo.InvariantCulture)), Assert.Single(fields));
    }

    [Fact]
    public void FieldsThatRepeatTakeOneByteFromTheSecondResponseOn()
    {
        var encoder = new HpackEncoder();
        var decoder = new HpackDecoder(4096, 16 * 1024);
        string[] response = [":status: 200", "server: PlatformBenchmarks", "content-type: text/plain", "date: Sat, 28 Nov 2026 02:00:00 GMT"];

        byte[] first = Encode(encoder, response);
        byte[] second = Encode(encoder, response);

        Assert.Equal(4, second.Length);
        Assert.True(first.Length > 40);
        Assert.Equal(response, DecodeAsLines(decoder, first));
        Assert.Equal(response, DecodeAsLines(decoder, second));
    }

    [Fact]
    public void AStringIsHuffmanCodedOnlyWhenThatIsShorter()
    {
        var encoder = new HpackEncoder();
        byte[] destination = new byte[64];

        // "aaaa" is 20 bits coded: 3 bytes, not 4. "x-a" is 18 bits, 3 bytes, and "!!!!" 40 bits: both go raw.
        int written = encoder.EncodeField(0, "x-a"u8, "aaaa"u8, HpackIndexing.WithoutIndexing, destination);
        Assert.Equal(Hpack.Hex("00 03 782d61 83 18c63f"), destination[..written]);
        written = encoder.EncodeField(0, "x-b"u8, "!!!!"u8, HpackIndexing.WithoutIndexing, destination);
        Assert.Equal(Hpack.Hex("00 03 782d62 04 21212121"), destination[..written]);
    }

    [Fact]
    public void ANeverIndexedFieldStaysOutOfBothTablesAndArrivesAsNeverIndexed()
    {
        var encoder = new HpackEncoder();
        var decoder = new HpackDecoder(4096, 1024);
        byte[] destination = new byte[64];
        int written = encoder.EncodeField(0, "password"u8, "secret"u8, HpackIndexing.NeverIndexed, destination);
        var recorder = new HpackRecorder();

        Assert.Equal(HpackError.None, decoder.Decode(destination.AsSpan(0, written), endHeaders: true, ref recorder));
        Assert.Equal([true], recorder.NeverIndexed);
        Assert.Equal(0, encoder.DynamicTable.Count);
        Assert.Equal(0, decoder.DynamicTable.Count);
    }

    [Fact]
    public void ThePeersTableSizeIsAnnouncedAtTheNextBlockWithItsLowestValue()
    {
        var encoder = new HpackEncoder();
        var decoder = new HpackDecoder(4096, 16 * 1024);
        string[] response = [":status: 200", "server: PlatformBenchmarks"];
        DecodeAsLines(decoder, Encode(encoder, response));

        // The peer lowers its table to 0, then raises it to 100, before this side's next block.
        encoder.SetPeerTableSize(0);
        encoder.SetPeerTableSize(100);
        byte[] block = Encode(encoder, response);

        Assert.Equal(Hpack.Hex("20 3f 45"), block[..3]);
        Assert.Equal(response, DecodeAsLines(decoder, block));
        Assert.Equal(100, decoder.DynamicTable.MaxSize);
        Assert.Equal(Hpack.Entries(encoder.DynamicTable), Hpack.Entries(decoder.DynamicTable));

        // A size above the encoder's own capacity is held to it.
        encoder.SetPeerTableSize(1u << 20);
        Assert.Equal(4096, encoder.DynamicTable.MaxSize);
    }

    [Fact]
    public void RandomFieldListsRoundTripWithTheTablesInStep()
    {
        var random = new Random(9113);
        var encoder = new HpackEncoder(512);
        var decoder = new HpackDecoder(512, 64 * 1024);
        Span<byte> update = stackalloc byte[16];
        Assert.Equal(HpackError.None, Hpack.Decode(decoder, update[..encoder.BeginBlock(update)].ToArray()).Error);
        string[] names = ["server", "content-type", "date", "x-custom", "set-cookie", "vary", "etag", "x-long-name-of-a-field"];
        for (int round = 0; round < 300; round++)
        {
            string[] fields = Enumerable.Range(0, random.Next(1, 12)).Select(_ =>
            {
                string value = new(Enumerable.Range(0, random.Next(0, 150)).Select(_ => (char)random.Next(0x20, 0x7F)).ToArray());
                return $"{names[random.Next(names.Length)]}: {value.Trim()}";
            }).ToArray();
            var indexing = (HpackIndexing)random.Next(3);

            byte[] block = Encode(encoder, fields, indexing);

            Assert.Equal(fields, DecodeAsLines(decoder, block));
            Assert.Equal(Hpack.Entries(encoder.DynamicTable), Hpack.Entries(decoder.DynamicTable));
        }
    }

    private static byte[] Encode(HpackEncoder encoder, string[] fields, HpackIndexing indexing = HpackIndexing.Incremental)
    {
        byte[] block = new byte[64 * 1024];
        int written = encoder.BeginBlock(block);
        foreach (string field in fields)
        {
            int colon = field.IndexOf(':', 1);
            byte[] name = Encoding.Latin1.GetBytes(field[..colon]);
            byte[] value = Encoding.Latin1.GetBytes(field[(colon + 2)..]);
            written += encoder.EncodeField(HpackStaticTable.FindName(name), name, value, indexing, block.AsSpan(written));
        }

        return block[..written];
    }

    private static List<string> DecodeAsLines(HpackDecoder decoder, byte[] block)
    {
        (HpackError error, List<(string Name, string Value)> fields) = Hpack.Decode(decoder, block);
        Assert.Equal(HpackError.None, error);
        return fields.Select(field => $"{field.Name}: {field.Value}").ToList();
    }
}
