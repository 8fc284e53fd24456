using System.Text.Json;
using System.Text.Json.Serialization;

namespace PlatformBenchmarks.Data;

/// <summary>
/// Source-generated JSON metadata for the database results: camelCase gives exactly the keys <c>id</c> and
/// <c>randomNumber</c> that TFB expects (docs/tfb-rules.md §2, §4.2). Serialisation-only mode emits the fast path that
/// writes straight to a <see cref="Utf8JsonWriter"/>, without reflection.
/// </summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    GenerationMode = JsonSourceGenerationMode.Serialization)]
[JsonSerializable(typeof(World))]
[JsonSerializable(typeof(World[]))]
internal sealed partial class DataJsonContext : JsonSerializerContext;

/// <summary>Writes worlds with the generated metadata. Generic all the way down: a <see cref="World"/> is never boxed.</summary>
internal static class WorldJson
{
    public static void Write(Utf8JsonWriter writer, World world)
        => JsonSerializer.Serialize(writer, world, DataJsonContext.Default.World);

    public static void Write(Utf8JsonWriter writer, World[] worlds)
        => JsonSerializer.Serialize(writer, worlds, DataJsonContext.Default.WorldArray);
}
