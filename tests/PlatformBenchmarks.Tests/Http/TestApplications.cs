using System.Collections.Concurrent;
using System.Text;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>
/// Applications that exercise the engine without any TFB route: "/throw" throws, "/throw/KIND" throws an exception of
/// that kind ("io": IOException, "missing": FileNotFoundException), "/late-throw/KIND" throws it after its first await,
/// "/throw-after/N" reads N bytes of its body and then throws an IOException, "/silent" writes nothing, "/size/N"
/// answers N bytes, "/gate/NAME" answers once the test opens the gate NAME of its <see cref="Gates"/> (and then throws
/// if NAME is "throw"), "/echo" answers with the request's body, read 7 bytes at a time, "/first/N" reads at most N
/// bytes of it and answers with those, "/count" reads the whole body through one 64 KiB buffer and answers how many
/// bytes it had, "/count-after/NAME" does so once the test opens the gate NAME, and anything else echoes method, path and query. A path under "/limit/N/" takes bodies of up to N
/// bytes, whatever the configured limit.
/// </summary>
internal readonly struct EchoApplication(Gates? gates) : IHttpApplication
{
    private readonly Gates? _gates = gates;

    public long MaxRequestBodySize(HttpRequest request, long configured)
    {
        ReadOnlySpan<byte> path = request.Path;
        if (!path.StartsWith("/limit/"u8))
        {
            return configured;
        }

        path = path["/limit/"u8.Length..];
        return long.Parse(Encoding.ASCII.GetString(path[..path.IndexOf((byte)'/')]), System.Globalization.CultureInfo.InvariantCulture);
    }

    public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
    {
        ReadOnlySpan<byte> path = request.Path;
        if (path.SequenceEqual("/throw"u8))
        {
            throw new InvalidOperationException("Application failure.");
        }

        if (path.StartsWith("/throw/"u8))
        {
            throw Failure(path["/throw/"u8.Length..]);
        }

        if (path.StartsWith("/late-throw/"u8))
        {
            return ThrowLaterAsync(Failure(path["/late-throw/"u8.Length..]));
        }

        if (path.StartsWith("/throw-after/"u8))
        {
            int count = int.Parse(Encoding.ASCII.GetString(path["/throw-after/"u8.Length..]), System.Globalization.CultureInfo.InvariantCulture);
            return ThrowAfterReadingAsync(request.Body, count);
        }

        if (path.SequenceEqual("/count"u8))
        {
            return CountBodyAsync(request.Body, response);
        }

        if (path.StartsWith("/count-after/"u8))
        {
            Gates gates = _gates ?? throw new InvalidOperationException("No gates to wait at.");
            return CountBodyAfterAsync(request.Body, response, gates.PassAsync(Encoding.ASCII.GetString(path["/count-after/"u8.Length..])));
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

        if (path.SequenceEqual("/echo"u8) || (path.StartsWith("/limit/"u8) && path.EndsWith("/echo"u8)))
        {
            return EchoBodyAsync(request.Body, response, int.MaxValue);
        }

        if (path.StartsWith("/first/"u8))
        {
            int limit = int.Parse(Encoding.ASCII.GetString(path[7..]), System.Globalization.CultureInfo.InvariantCulture);
            return EchoBodyAsync(request.Body, response, limit);
        }

        string echo = $"{Encoding.ASCII.GetString(request.MethodToken)} {Encoding.ASCII.GetString(path)} {Encoding.ASCII.GetString(request.Query)}";
        if (path.StartsWith("/gate/"u8))
        {
            string gate = Encoding.ASCII.GetString(path[6..]);
            return AnswerLaterAsync(response, echo, gate, _gates ?? throw new InvalidOperationException("No gates to wait at."));
        }

        response.Write(HttpStatus.Ok, "text/plain"u8, Encoding.ASCII.GetBytes(echo));
        return default;
    }

    /// <summary>Reads the body, up to <paramref name="limit"/> bytes, in small reads, and answers with what it read.</summary>
    private static async ValueTask EchoBodyAsync(RequestBody body, HttpResponse response, int limit)
    {
        var received = new List<byte>();
        byte[] buffer = new byte[7];
        while (received.Count < limit)
        {
            int read = await body.ReadAsync(buffer.AsMemory(0, Math.Min(buffer.Length, limit - received.Count)));
            if (read == 0)
            {
                break;
            }

            received.AddRange(buffer.AsSpan(0, read));
        }

        response.Write(HttpStatus.Ok, "application/octet-stream"u8, received.ToArray());
    }

    private static Exception Failure(ReadOnlySpan<byte> kind) =>
        kind.SequenceEqual("io"u8) ? new IOException("Disk failure.")
        : kind.SequenceEqual("missing"u8) ? new FileNotFoundException("No such file.", "missing.txt")
        : new InvalidOperationException("Application failure.");

    private static async ValueTask ThrowLaterAsync(Exception failure)
    {
        await Task.Yield();
        throw failure;
    }

    private static async ValueTask ThrowAfterReadingAsync(RequestBody body, int count)
    {
        byte[] buffer = new byte[1];
        for (int i = 0; i < count; i++)
        {
            if (await body.ReadAsync(buffer) == 0)
            {
                break;
            }
        }

        throw new IOException("Failure after reading the body.");
    }

    private static async ValueTask CountBodyAfterAsync(RequestBody body, HttpResponse response, Task gate)
    {
        await gate;
        await CountBodyAsync(body, response);
    }

    private static async ValueTask CountBodyAsync(RequestBody body, HttpResponse response)
    {
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        int read;
        while ((read = await body.ReadAsync(buffer)) > 0)
        {
            total += read;
        }

        response.Write(HttpStatus.Ok, "text/plain"u8, Encoding.ASCII.GetBytes(total.ToString(System.Globalization.CultureInfo.InvariantCulture)));
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

    private static async ValueTask AnswerLaterAsync(HttpResponse response, string echo, string gate, Gates gates)
    {
        await gates.PassAsync(gate);
        if (gate == "throw")
        {
            throw new InvalidOperationException("Late failure.");
        }

        response.Write(HttpStatus.Ok, "text/plain"u8, Encoding.ASCII.GetBytes(echo));
        gates.MarkAnswered(gate);
    }
}

/// <summary>
/// Named points where <see cref="EchoApplication"/> holds a request until the test opens them: an answer that is
/// still pending when the engine looks at it, and finishes when the test says, whatever the machine's speed.
/// </summary>
internal sealed class Gates
{
    private readonly ConcurrentDictionary<string, Gate> _gates = new();

    /// <summary>Completes once a request waits at the gate.</summary>
    public Task ReachedAsync(string name) => Get(name).Reached.Task.WaitAsync(TimeSpan.FromSeconds(10));

    public void Open(string name) => Get(name).Opened.TrySetResult();

    /// <summary>Completes once the request let through the gate has written its answer.</summary>
    public Task AnsweredAsync(string name) => Get(name).Answered.Task.WaitAsync(TimeSpan.FromSeconds(10));

    public void MarkAnswered(string name) => Get(name).Answered.TrySetResult();

    /// <summary>Waits at the gate until the test opens it.</summary>
    public Task PassAsync(string name)
    {
        Gate gate = Get(name);
        gate.Reached.TrySetResult();
        return gate.Opened.Task;
    }

    private Gate Get(string name) => _gates.GetOrAdd(name, static _ => new Gate());

    private sealed class Gate
    {
        public TaskCompletionSource Reached { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Opened { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Answered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}
