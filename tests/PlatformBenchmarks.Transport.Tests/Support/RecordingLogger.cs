using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace PlatformBenchmarks.Transport.Tests.Support;

/// <summary>A logger factory that keeps every event it is given, from any thread.</summary>
internal sealed class RecordingLogger : ILoggerFactory, ILoggerProvider, ILogger
{
    private readonly ConcurrentQueue<(EventId Id, string Message)> _events = new();

    public IReadOnlyList<(EventId Id, string Message)> Events => [.. _events];

    public int Count(int eventId) => _events.Count(e => e.Id.Id == eventId);

    public ILogger CreateLogger(string categoryName) => this;

    public void AddProvider(ILoggerProvider provider)
    {
    }

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
        _events.Enqueue((eventId, formatter(state, exception)));

    public void Dispose()
    {
    }
}
