using System.Text;
using PlatformBenchmarks.Http.Http2;

namespace PlatformBenchmarks.Tests.Http2;

/// <summary>The Huffman code of RFC 7541 Appendix B, built from its lengths, and §5.2's rules for a coded string.</summary>
public class HpackHuffmanTests
{
    [Theory]
    [InlineData(0, 0x1ff8u, 13)]
    [InlineData(1, 0x7fffd8u, 23)]
    [InlineData(10, 0x3ffffffcu, 30)]
    [InlineData(' ', 0x14u, 6)]
    [InlineData('0', 0x0u, 5)]
    [InlineData('a', 0x3u, 5)]
    [InlineData('z', 0x7bu, 7)]
    [InlineData('~', 0x1ffdu, 13)]
    [InlineData(127, 0xffffffcu, 28)]
    [InlineData(128, 0xfffe6u, 20)]
    [InlineData(200, 0x3ffffe2u, 26)]
    [InlineData(254, 0x7fffff0u, 27)]
    [InlineData(255, 0x3ffffeeu, 26)]
    [InlineData(HpackHuffman.EndOfString, 0x3fffffffu, 30)]
    public void TheCodesAreThoseOfAppendixB(int symbol, uint code, int length)
    {
        Assert.Equal((code, length), HpackHuffman.Code(symbol));
    }

    [Fact]
    public void TheCodeIsCompleteAndPrefixFree()
    {
        // Kraft's sum of a complete prefix code is exactly 1; counted in units of 2^-30.
        long sum = 0;
        var seen = new HashSet<(uint, int)>();
        for (int symbol = 0; symbol <= HpackHuffman.EndOfString; symbol++)
        {
            (uint code, int length) = HpackHuffman.Code(symbol);
            Assert.True(code < (1u << length));
            Assert.True(seen.Add((code, length)));
            sum += 1L << (30 - length);
        }

        Assert.Equal(1L << 30, sum);
    }

    [Theory]
    [InlineData("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff")]
    [InlineData("no-cache", "a8eb 1064 9cbf")]
    [InlineData("custom-key", "25a8 49e9 5ba9 7d7f")]
    [InlineData("custom-value", "25a8 49e9 5bb8 e8b4 bf")]
    [InlineData("302", "6402")]
    [InlineData("private", "aec3 771a 4b")]
    [InlineData("Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff")]
    [InlineData("https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3")]
    [InlineData("gzip", "9bd9 ab")]
    [InlineData("", "")]
    public void StringsOfAppendixCEncodeAndDecode(string text, string coded)
    {
        byte[] plain = Encoding.Latin1.GetBytes(text);
        byte[] expected = Hpack.Hex(coded);
        byte[] encoded = new byte[HpackHuffman.EncodedLength(plain)];

        Assert.Equal(expected.Length, HpackHuffman.Encode(plain, encoded));
        Assert.Equal(expected, encoded);
        byte[] decoded = new byte[expected.Length * 8 / 5];
        int length = HpackHuffman.Decode(expected, decoded);
        Assert.Equal(text, Encoding.Latin1.GetString(decoded, 0, length));
    }

    [Fact]
    public void EveryByteValueRoundTrips()
    {
        var random = new Random(7541);
        for (int round = 0; round < 200; round++)
        {
            byte[] plain = new byte[random.Next(0, 300)];
            random.NextBytes(plain);
            if (round == 0)
            {
                plain = Enumerable.Range(0, 256).Select(value => (byte)value).ToArray();
            }

            byte[] encoded = new byte[HpackHuffman.EncodedLength(plain)];
            HpackHuffman.Encode(plain, encoded);
            byte[] decoded = new byte[plain.Length];

            Assert.Equal(plain.Length, HpackHuffman.Decode(encoded, decoded));
            Assert.Equal(plain, decoded);
        }
    }

    /// <summary>§5.2: EOS in a string, padding over 7 bits, and padding that is not the ones of EOS are errors.</summary>
    [Theory]
    [InlineData("ff ff ff ff", "EOS whole in the string: 30 ones and two padding bits")]
    [InlineData("ff ff ff fc", "EOS's 30 ones")]
    [InlineData("1f ff", "'a' (00011) then 11 ones of padding")]
    [InlineData("ff", "8 ones: padding longer than 7 bits")]
    [InlineData("00", "'0' (00000) then padding 000, not ones")]
    [InlineData("1c", "'a' (00011) then padding 100, not all ones")]
    [InlineData("f1e3 c2e5 f23a 6ba0 ab90 f4ff ff", "a valid string and a whole byte of padding")]
    [InlineData("f1e3 c2e5 f23a 6ba0 ab90 f4fe", "a valid string, its last padding bit zero")]
    public void InvalidCodingIsRefused(string coded, string why)
    {
        byte[] destination = new byte[64];
        Assert.True(HpackHuffman.Decode(Hpack.Hex(coded), destination) == -1, why);
    }

    [Fact]
    public void PaddingOfUpToSevenOnesIsAccepted()
    {
        // '0' is 00000: three ones pad it to a byte; 'a' then '0' is 00011 00000 then six ones.
        byte[] destination = new byte[8];
        Assert.Equal(1, HpackHuffman.Decode([0x07], destination));
        Assert.Equal((byte)'0', destination[0]);
        Assert.Equal(2, HpackHuffman.Decode([0x18, 0x3F], destination));
        Assert.Equal("a0"u8.ToArray(), destination[..2]);
    }

    [Fact]
    public void ADestinationTooShortIsSaidApartFromInvalidCoding()
    {
        byte[] coded = Hpack.Hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff");
        Assert.Equal(-2, HpackHuffman.Decode(coded, new byte[14]));
        Assert.Equal(15, HpackHuffman.Decode(coded, new byte[15]));
    }
}
