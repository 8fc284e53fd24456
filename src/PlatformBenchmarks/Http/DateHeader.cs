using System.Buffers.Text;

namespace PlatformBenchmarks.Http;

/// <summary>
/// The Date header value (IMF-fixdate, RFC 9110 §5.6.7), rendered once a second and shared by every response.
/// TFB requires an accurate Date on every response and allows re-rendering it once a second.
/// </summary>
internal static class DateHeader
{
    private const int Length = 29; // "Sun, 06 Nov 1994 08:49:37 GMT"

    private static byte[] s_value = Render(DateTimeOffset.UtcNow);
    private static readonly Timer s_timer = new(static _ => Refresh(), null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));

    /// <summary>The current value; each refresh publishes a new array, so a reader never sees a half-written one.</summary>
    public static ReadOnlySpan<byte> Value => Volatile.Read(ref s_value);

    /// <summary>Keeps the refresh timer rooted; called once at start-up.</summary>
    public static void Start() => GC.KeepAlive(s_timer);

    internal static void Refresh() => Volatile.Write(ref s_value, Render(DateTimeOffset.UtcNow));

    private static byte[] Render(DateTimeOffset now)
    {
        var value = new byte[Length];
        Utf8Formatter.TryFormat(now, value, out _, 'R');
        return value;
    }
}
