using System.IO.Pipelines;
using System.Text;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>What a handler gets from the engine, whatever the protocol: its connection's context, and fields it names rather than writes.</summary>
public class ProtocolSeamTests
{
    private static readonly ResponseFields s_fields = new(("Content-Language", "en"), ("Vary", "Accept-Encoding"));

    [Fact]
    public async Task AHandlerFindsItsConnectionsLoopClockAndLimitsInTheRequest()
    {
        var limits = new HttpLimits { MaxRequestBodySize = 12345, LingerTimeout = TimeSpan.Zero };
        var loop = new ConnectionLoop(new IdleScheduler(), 3, Environment.CurrentManagedThreadId + 1000);
        await using var connection = new PipeConnection<ContextApplication>(default, limits, loop: loop);
        await connection.SendAsync("GET /context HTTP/1.1\r\nHost: t\r\n\r\n");

        RawResponse response = (await connection.ReadAsync())!;
        Assert.Equal(200, response.Status);
        Assert.Equal($"loop 3, thread {loop.ThreadId}, on it False, body limit 12345, clock {connection.Time.GetUtcNow():O}", response.BodyText);
    }

    [Fact]
    public async Task WithoutALoopTheContextSaysSo()
    {
        await using var connection = new PipeConnection<ContextApplication>(default);
        await connection.SendAsync("GET /context HTTP/1.1\r\nHost: t\r\n\r\n");

        Assert.StartsWith("no loop", (await connection.ReadAsync())!.BodyText, StringComparison.Ordinal);
    }

    [Fact]
    public void TheLoopsOwnThreadIsTheOneItNames()
    {
        var here = new ConnectionLoop(new IdleScheduler(), 0, Environment.CurrentManagedThreadId);
        var elsewhere = new ConnectionLoop(new IdleScheduler(), 0, Environment.CurrentManagedThreadId + 1);

        Assert.True(here.IsCurrentThread);
        Assert.False(elsewhere.IsCurrentThread);
        Assert.False(default(ConnectionLoop).IsCurrentThread);
    }

    [Fact]
    public async Task FieldsAHandlerNamesGoOutAsHttp11FieldLinesBeforeTheBody()
    {
        await using var connection = new PipeConnection<ContextApplication>(default);
        await connection.SendAsync("GET /fields HTTP/1.1\r\nHost: t\r\n\r\nHEAD /fields HTTP/1.1\r\nHost: t\r\n\r\n");

        RawResponse get = (await connection.ReadAsync())!;
        Assert.Equal("en", get.Header("Content-Language"));
        Assert.Equal("Accept-Encoding", get.Header("Vary"));
        Assert.Equal("hello", get.BodyText);
        RawResponse head = (await connection.ReadAsync(head: true))!;
        Assert.Equal("en", head.Header("Content-Language"));
        Assert.Equal("5", head.Header("Content-Length"));
    }

    [Theory]
    [InlineData("", "x")]
    [InlineData("Bad Name", "x")]
    [InlineData("Bad:Name", "x")]
    [InlineData("Name", "line\r\nInjected: yes")]
    [InlineData("Name", "nul\0")]
    [InlineData("Name", " padded")]
    [InlineData("Name", "café")]
    public void AFieldThatIsNotOneIsRefusedWhenBuilt(string name, string value)
    {
        Assert.Throws<ArgumentException>(() => new ResponseFields((name, value)));
    }

    [Fact]
    public void AGroupKeepsItsFieldsInOrderAndTheirHttp11Lines()
    {
        Assert.Equal([("Content-Language", "en"), ("Vary", "Accept-Encoding")], s_fields.Fields);
        Assert.Equal("Content-Language: en\r\nVary: Accept-Encoding\r\n", Encoding.ASCII.GetString(s_fields.Http1Lines));
    }

    /// <summary>"/context" describes the request's connection context; "/fields" answers with <see cref="s_fields"/>.</summary>
    private readonly struct ContextApplication : IHttpApplication
    {
        public long MaxRequestBodySize(HttpRequest request, long configured) => configured;

        public ValueTask ProcessRequest(HttpRequest request, HttpResponse response)
        {
            if (request.Path.SequenceEqual("/fields"u8))
            {
                response.Write(HttpStatus.Ok, HttpResponse.TextPlain, "hello"u8, s_fields);
                return default;
            }

            HttpConnectionContext context = request.Connection;
            string loop = context.Loop.NextTurn is null
                ? "no loop"
                : $"loop {context.Loop.Index}, thread {context.Loop.ThreadId}, on it {context.Loop.IsCurrentThread}";
            response.WriteText(HttpStatus.Ok, Encoding.ASCII.GetBytes($"{loop}, body limit {context.Limits.MaxRequestBodySize}, clock {context.Time.GetUtcNow():O}"));
            return default;
        }
    }

    /// <summary>A loop's scheduler that never runs anything: these tests only carry it.</summary>
    private sealed class IdleScheduler : PipeScheduler
    {
        public override void Schedule(Action<object?> action, object? state) => throw new InvalidOperationException("Nothing is scheduled here.");
    }
}
