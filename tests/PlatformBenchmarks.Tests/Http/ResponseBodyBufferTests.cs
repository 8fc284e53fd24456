using System.Buffers;
using System.Text.Json;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>Body buffers lent from connection to connection: reused, and never showing one connection's bytes to the next.</summary>
public class ResponseBodyBufferTests
{
    private static string Text(ResponseBodyBuffer buffer) => System.Text.Encoding.UTF8.GetString(buffer.Written);

    [Fact]
    public void AReusedBufferHoldsOnlyTheNextBodysBytes()
    {
        ResponseBodyBuffer buffer = ResponseBodyBuffer.PoolPolicy.Create();
        buffer.Start().Write(new string('A', 9000).Select(c => (byte)c).ToArray());
        Assert.True(ResponseBodyBuffer.PoolPolicy.Return(buffer));

        Utf8JsonWriter json = buffer.StartJson();
        json.WriteStartObject();
        json.WriteNumber("n", 1);
        json.WriteEndObject();

        Assert.Equal("{\"n\":1}", Text(buffer));
    }

    [Fact]
    public void AJsonWriterLeftHalfWrittenByTheLastOwnerStartsEmpty()
    {
        ResponseBodyBuffer buffer = ResponseBodyBuffer.PoolPolicy.Create();
        Utf8JsonWriter json = buffer.StartJson();
        json.WriteStartObject();
        json.WriteString("secret", "left behind");
        Assert.True(ResponseBodyBuffer.PoolPolicy.Return(buffer));

        buffer.StartJson().WriteStringValue("mine");

        Assert.Equal("\"mine\"", Text(buffer));
    }

    [Fact]
    public void APlainBodyAfterAJsonOneHoldsNoPendingJson()
    {
        ResponseBodyBuffer buffer = ResponseBodyBuffer.PoolPolicy.Create();
        buffer.StartJson().WriteStartArray();

        buffer.Start().Write("plain"u8);

        Assert.Equal("plain", Text(buffer));
    }

    [Theory]
    [InlineData(4096, true)]
    [InlineData(60_000, true)]
    [InlineData(100_000, false)]
    public void ABufferIsTakenBackOnlyWhileItHasNotGrownPastSixtyFourKibibytes(int written, bool kept)
    {
        ResponseBodyBuffer buffer = ResponseBodyBuffer.PoolPolicy.Create();
        buffer.Start().Write(new byte[written]);

        Assert.Equal(kept, ResponseBodyBuffer.PoolPolicy.Return(buffer));
    }

    [Fact]
    public void TwoConnectionsAtOnceNeverShareABuffer()
    {
        ResponseBodyBuffer.Return(ResponseBodyBuffer.Rent());

        Assert.NotSame(ResponseBodyBuffer.Rent(), ResponseBodyBuffer.Rent());
    }
}
