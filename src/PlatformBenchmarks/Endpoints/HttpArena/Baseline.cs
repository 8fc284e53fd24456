using System.Buffers.Text;
using System.Runtime.CompilerServices;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// HttpArena's baseline profile: <c>/baseline11?a=&amp;b=</c> answers <c>a + b</c> as text, and a POST adds the integer
/// its body holds (Content-Length or chunked, read as it arrives). A parameter or a body that is not an integer, or a sum
/// past 64 bits, gets 400 with the reason: the venue's anti-cheat sends random values, so none is ever assumed.
/// </summary>
internal static class Baseline
{
    // A 64-bit integer is at most 20 characters with its sign; room for surrounding whitespace, and one byte more, so a
    // longer body is seen to be too long without reading all of it.
    private const int MaxBodyLength = 40;

    public static ReadOnlySpan<byte> Path => "/baseline11"u8;

    public static ValueTask Answer(HttpRequest request, HttpResponse response)
    {
        Span<byte> scratch = stackalloc byte[32];
        if (!TryParse(QueryString.GetValue(request.Query, "a"u8, scratch), out long a))
        {
            response.WriteText(HttpStatus.BadRequest, "Query parameter 'a' must be an integer.\n"u8);
            return default;
        }

        if (!TryParse(QueryString.GetValue(request.Query, "b"u8, scratch), out long b))
        {
            response.WriteText(HttpStatus.BadRequest, "Query parameter 'b' must be an integer.\n"u8);
            return default;
        }

        if (!TryAdd(a, b, out long sum))
        {
            WriteOutOfRange(response);
            return default;
        }

        if (request.Method != HttpMethod.Post)
        {
            WriteNumber(response, sum);
            return default;
        }

        // The response's body buffer is free until the answer is written, and the answer here is written from a span of
        // its own: it holds the request's body meanwhile, with no allocation per request.
        Memory<byte> body = response.StartBody().GetMemory(MaxBodyLength)[..MaxBodyLength];
        return AddBodyAsync(request.Body, response, sum, body);
    }

    // Pooled: a body that has to be waited for (a chunked or fragmented one) costs no state machine per request.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private static async ValueTask AddBodyAsync(RequestBody requestBody, HttpResponse response, long sum, Memory<byte> body)
    {
        int length = 0;
        while (length < body.Length)
        {
            int read = await requestBody.ReadAsync(body[length..]);
            if (read == 0)
            {
                break;
            }

            length += read;
        }

        if (length == body.Length || !TryParse(body.Span[..length].Trim(" \t\r\n"u8), out long value))
        {
            // What is left of a long body is the engine's to discard.
            response.WriteText(HttpStatus.BadRequest, "The body must be an integer.\n"u8);
        }
        else if (!TryAdd(sum, value, out long total))
        {
            WriteOutOfRange(response);
        }
        else
        {
            WriteNumber(response, total);
        }
    }

    /// <summary>An optionally signed decimal integer that fills <paramref name="text"/> exactly.</summary>
    internal static bool TryParse(ReadOnlySpan<byte> text, out long value)
        => Utf8Parser.TryParse(text, out value, out int consumed) && consumed == text.Length && !text.IsEmpty;

    private static bool TryAdd(long left, long right, out long sum)
    {
        sum = unchecked(left + right);
        // Overflow: both operands have the same sign and the sum has the other one.
        return ((left ^ sum) & (right ^ sum)) >= 0;
    }

    internal static void WriteNumber(HttpResponse response, long value)
    {
        Span<byte> digits = stackalloc byte[20];
        Utf8Formatter.TryFormat(value, digits, out int written);
        response.Write(HttpStatus.Ok, HttpResponse.TextPlain, digits[..written]);
    }

    private static void WriteOutOfRange(HttpResponse response)
        => response.WriteText(HttpStatus.BadRequest, "The sum does not fit in a 64-bit integer.\n"u8);
}
