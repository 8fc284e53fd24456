using System.Buffers;
using System.Text;
using System.Text.Json;
using PlatformBenchmarks.Data;

namespace PlatformBenchmarks.Tests.Data;

public class WorldJsonTests
{
    [Fact]
    public void WorldSerialisesWithExactlyTheKeysIdAndRandomNumber()
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            WorldJson.Write(writer, new World(3217, 2149));
        }

        Assert.Equal("""{"id":3217,"randomNumber":2149}""", Encoding.UTF8.GetString(buffer.WrittenSpan));
    }

    [Fact]
    public void WorldArraySerialisesAsAJsonArrayEvenForOneRow()
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            WorldJson.Write(writer, [new World(1, 10000)]);
            writer.Flush();
            buffer.Write(" "u8);
            writer.Reset();
            WorldJson.Write(writer, [new World(1, 2), new World(10000, 1)]);
        }

        Assert.Equal("""[{"id":1,"randomNumber":10000}] [{"id":1,"randomNumber":2},{"id":10000,"randomNumber":1}]""",
            Encoding.UTF8.GetString(buffer.WrittenSpan));
    }

    [Fact]
    public void WritingWorldsAllocatesNothingOnceWarm()
    {
        var buffer = new ArrayBufferWriter<byte>(64 * 1024);
        using var writer = new Utf8JsonWriter(buffer);
        var world = new World(42, 4242);
        World[] worlds = [world, world, world];
        WorldJson.Write(writer, world);
        writer.Reset();
        WorldJson.Write(writer, worlds);
        writer.Flush();
        buffer.ResetWrittenCount();
        writer.Reset();

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 100; i++)
        {
            WorldJson.Write(writer, world);
            writer.Flush();
            writer.Reset();
            WorldJson.Write(writer, worlds);
            writer.Flush();
            buffer.ResetWrittenCount();
            writer.Reset();
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }
}
