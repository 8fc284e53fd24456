using System.Text;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Benchmarks.Fixtures;

/// <summary>What a correct response looks like, for the set-up checks of the writing and end-to-end benchmarks.</summary>
internal static class Responses
{
    public static ReadOnlySpan<byte> StatusLineOk => "HTTP/1.1 200 OK\r\n"u8;

    public static ReadOnlySpan<byte> PlaintextBody => "Hello, World!"u8;

    public static ReadOnlySpan<byte> JsonBody => "{\"message\":\"Hello, World!\"}"u8;

    /// <summary>The head a TFB request parses to: GET, HTTP/1.1, keep-alive, no body.</summary>
    public static RequestHead KeepAliveGet() => new()
    {
        Method = HttpMethod.Get,
        Version = HttpVersion.Http11,
        KeepAlive = true,
        QueryStart = -1,
    };

    /// <summary>Checks <paramref name="response"/> is one whole 200 response with the TFB-required fields and <paramref name="body"/>.</summary>
    public static void CheckOk(ReadOnlySpan<byte> response, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, string what)
    {
        string text = Encoding.ASCII.GetString(response);
        string expectedEnd = $"\r\n\r\n{Encoding.ASCII.GetString(body)}";
        FixtureCheck.That(response.StartsWith(StatusLineOk), $"{what} starts with 200 OK: {text}");
        FixtureCheck.That(text.EndsWith(expectedEnd, StringComparison.Ordinal), $"{what} ends with the body: {text}");
        FixtureCheck.That(text.Contains("\r\nServer: ", StringComparison.Ordinal), $"{what} has Server: {text}");
        FixtureCheck.That(text.Contains("\r\nDate: ", StringComparison.Ordinal), $"{what} has Date: {text}");
        FixtureCheck.That(text.Contains($"\r\nContent-Type: {Encoding.ASCII.GetString(contentType)}\r\n", StringComparison.Ordinal), $"{what} has Content-Type: {text}");
        FixtureCheck.That(text.Contains($"\r\nContent-Length: {body.Length}\r\n", StringComparison.Ordinal), $"{what} has Content-Length: {text}");
    }

    /// <summary>Checks <paramref name="responses"/> is <paramref name="count"/> identical copies of one whole 200 response.</summary>
    public static void CheckRepeatedOk(ReadOnlySpan<byte> responses, int count, ReadOnlySpan<byte> contentType, ReadOnlySpan<byte> body, string what)
    {
        FixtureCheck.That(responses.Length % count == 0, $"{what}: {responses.Length} bytes split into {count} equal responses");
        int length = responses.Length / count;
        ReadOnlySpan<byte> first = responses[..length];
        CheckOk(first, contentType, body, $"{what} (1 of {count})");
        // Every copy is byte for byte the first, except the Date value, which may tick over between two of them.
        int dateStart = first.IndexOf("\r\nDate: "u8) + "\r\nDate: "u8.Length;
        int dateEnd = dateStart + first[dateStart..].IndexOf("\r\n"u8);
        for (int i = 1; i < count; i++)
        {
            ReadOnlySpan<byte> copy = responses.Slice(i * length, length);
            FixtureCheck.That(
                copy[..dateStart].SequenceEqual(first[..dateStart]) && copy[dateEnd..].SequenceEqual(first[dateEnd..]),
                $"{what}: response {i + 1} of {count} is whole");
        }
    }
}
