using System.Text.Json;
using System.Text.Json.Serialization;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.Tfb;

/// <summary>TFB json test: a new object serialised per request (TFB forbids caching the serialised bytes).</summary>
internal static class Json
{
    public static void Write(HttpResponse response)
    {
        Utf8JsonWriter writer = response.StartJson();
        JsonSerializer.Serialize(writer, new JsonMessage("Hello, World!"), MessageJsonContext.Default.JsonMessage);
        response.WriteBuffered(HttpStatus.Ok, MediaTypes.Json);
    }
}

internal readonly record struct JsonMessage(string Message);

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, GenerationMode = JsonSourceGenerationMode.Serialization)]
[JsonSerializable(typeof(JsonMessage))]
internal sealed partial class MessageJsonContext : JsonSerializerContext;
