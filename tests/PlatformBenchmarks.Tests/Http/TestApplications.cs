using System.Text;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>
/// Applications that exercise the engine without any TFB route: "/throw" throws, "/silent" writes nothing,
/// "/slow/N" answers after N milliseconds, and anything else echoes method, path and query.
/// </summary>
internal readonly struct EchoApplication : IHttpApplication
{
    public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
    {
        ReadOnlySpan<byte> path = request.Path;
        if (path.SequenceEqual("/throw"u8))
        {
            throw new InvalidOperationException("Application failure.");
        }

        if (path.SequenceEqual("/silent"u8))
        {
            return default;
        }

        if (path.StartsWith("/size/"u8))
        {
            // A body of N bytes written through the reusable body buffer.
            int size = int.Parse(Encoding.ASCII.GetString(path[6..]), System.Globalization.CultureInfo.InvariantCulture);
            WriteSized(response, size);
            return default;
        }

        string echo = $"{Encoding.ASCII.GetString(request.MethodToken)} {Encoding.ASCII.GetString(path)} {Encoding.ASCII.GetString(request.Query)}";
        if (path.StartsWith("/slow/"u8))
        {
            int delay = int.Parse(Encoding.ASCII.GetString(path[6..]), System.Globalization.CultureInfo.InvariantCulture);
            return AnswerLaterAsync(response, echo, delay);
        }

        response.Write(HttpStatus.Ok, "text/plain"u8, Encoding.ASCII.GetBytes(echo));
        return default;
    }

    private static void WriteSized(HttpResponse response, int size)
    {
        System.Buffers.IBufferWriter<byte> writer = response.StartBody();
        Span<byte> body = writer.GetSpan(size)[..size];
        for (int i = 0; i < size; i++)
        {
            body[i] = (byte)('a' + (i % 26));
        }

        writer.Advance(size);
        response.WriteBuffered(HttpStatus.Ok, "text/plain"u8);
    }

    private static async ValueTask AnswerLaterAsync(HttpResponse response, string echo, int delay)
    {
        await Task.Delay(delay);
        if (echo.Contains("/slow/13", StringComparison.Ordinal))
        {
            throw new InvalidOperationException("Late failure.");
        }

        response.Write(HttpStatus.Ok, "text/plain"u8, Encoding.ASCII.GetBytes(echo));
    }
}
