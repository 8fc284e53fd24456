using System.Buffers.Text;

namespace PlatformBenchmarks.Http;

/// <summary>
/// The Date header value (IMF-fixdate, RFC 9110 §5.6.7), rendered once a second and shared by every response.
/// TFB requires an accurate Date on every response and allows re-rendering it once a second.
/// </summary>
public sealed class DateHeader : IDisposable
{
    private const int Length = 29; // "Sun, 06 Nov 1994 08:49:37 GMT"

    private readonly TimeProvider _time;
    private readonly ITimer _timer;
    private byte[] _value;

    public DateHeader(TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(time);
        _time = time;
        _value = Render(time.GetUtcNow());
        _timer = time.CreateTimer(static state => ((DateHeader)state!).Refresh(), this, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
    }

    /// <summary>The current value; each refresh publishes a new array, so a reader never sees a half-written one.</summary>
    /// <remarks>Always 29 bytes, and the span's length is that constant, so a copy of it compiles to a few moves.</remarks>
    public ReadOnlySpan<byte> Value => new(Volatile.Read(ref _value), 0, Length);

    public void Dispose() => _timer.Dispose();

    private void Refresh() => Volatile.Write(ref _value, Render(_time.GetUtcNow()));

    private static byte[] Render(DateTimeOffset now)
    {
        byte[] value = new byte[Length];
        Utf8Formatter.TryFormat(now, value, out _, 'R');
        return value;
    }
}
