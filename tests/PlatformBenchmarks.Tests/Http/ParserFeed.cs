using System.Buffers;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Http;

/// <summary>Feeds one parser a head as a connection reads it: a few bytes more on each call, the same buffer start.</summary>
internal static class ParserFeed
{
    /// <summary>
    /// Appends <paramref name="bytes"/> to <paramref name="buffer"/> <paramref name="step"/> bytes at a time and calls
    /// <paramref name="parser"/> after each append with everything not consumed, dropping the leading empty lines it
    /// reports consumed while it waits, as the connection does. Returns each call's outcome in the form of
    /// <see cref="HeadModel.Describe"/> (consumed counted from the first byte fed), with the number of bytes fed by
    /// then, up to the first call that decides the head.
    /// </summary>
    public static List<(int Fed, string Outcome)> Trickle(HttpParser parser, GrowingSequence buffer, byte[] bytes, int step)
    {
        var outcomes = new List<(int Fed, string Outcome)>();
        int dropped = 0;
        for (int fed = 0; fed < bytes.Length;)
        {
            int take = Math.Min(step, bytes.Length - fed);
            buffer.Append(bytes.AsSpan(fed, take));
            fed += take;
            ParseStatus status = parser.TryParseHead(buffer.Sequence, out RequestHead head, out ReadOnlySpan<byte> headBytes, out int consumed, out RequestRejection rejection);
            outcomes.Add((fed, HeadModel.Describe(status, dropped + consumed, headBytes, in head, rejection)));
            if (status != ParseStatus.Incomplete)
            {
                break;
            }

            buffer.Consume(consumed);
            dropped += consumed;
        }

        return outcomes;
    }

    /// <summary>One parse of <paramref name="buffer"/> by a new parser, in the form of <see cref="HeadModel.Describe"/>.</summary>
    public static string OneShot(in ReadOnlySequence<byte> buffer, HttpLimits limits)
    {
        var parser = new HttpParser(limits);
        ParseStatus status = parser.TryParseHead(buffer, out RequestHead head, out ReadOnlySpan<byte> headBytes, out int consumed, out RequestRejection rejection);
        return HeadModel.Describe(status, consumed, headBytes, in head, rejection);
    }
}
