using System.Text;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>Requests exactly as TFB's wrk and verifier send them (docs/tfb-rules.md §3 and §9).</summary>
internal static class Requests
{
    public const string PlaintextAccept = "text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7";
    public const string JsonAccept = "application/json,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7";

    public const string Plaintext =
        $"GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\nAccept: {PlaintextAccept}\r\nConnection: keep-alive\r\n\r\n";

    public const string Json =
        $"GET /json HTTP/1.1\r\nHost: tfb-server\r\nAccept: {JsonAccept}\r\nConnection: keep-alive\r\n\r\n";

    public static byte[] Bytes(string text) => Encoding.Latin1.GetBytes(text);

    public static string Text(ReadOnlySpan<byte> bytes) => Encoding.Latin1.GetString(bytes);
}
