using System.Text;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>One HTTP/1.1 response read off the wire, framed by its Content-Length.</summary>
internal sealed record RawResponse(int Status, string Head, IReadOnlyList<KeyValuePair<string, string>> Headers, byte[] Body)
{
    public string BodyText => Encoding.UTF8.GetString(Body);

    public string? Header(string name)
    {
        foreach (KeyValuePair<string, string> header in Headers)
        {
            if (string.Equals(header.Key, name, StringComparison.OrdinalIgnoreCase))
            {
                return header.Value;
            }
        }

        return null;
    }

    /// <summary>The response as it was sent: head and body, one character per byte.</summary>
    public string Text => Head + Encoding.Latin1.GetString(Body);

    /// <summary>The head and body with the Date value blanked, for byte-exact comparisons.</summary>
    public string WithoutDate()
    {
        string date = Header("Date") ?? "";
        return Head.Replace("Date: " + date, "Date: *", StringComparison.Ordinal) + Encoding.Latin1.GetString(Body);
    }

    /// <summary>Reads the next response; null if the stream ends before a response starts.</summary>
    public static async Task<RawResponse?> ReadAsync(Stream stream, bool headRequest = false, CancellationToken cancellationToken = default)
    {
        var head = new List<byte>();
        while (!EndsWithEmptyLine(head))
        {
            int b = await ReadByteAsync(stream, cancellationToken);
            if (b < 0)
            {
                return head.Count == 0 ? null : throw new EndOfStreamException("The stream ended inside a response head.");
            }

            head.Add((byte)b);
        }

        string headText = Encoding.Latin1.GetString(head.ToArray());
        string[] lines = headText.Split("\r\n");
        string[] statusParts = lines[0].Split(' ', 3);
        Assert.Equal("HTTP/1.1", statusParts[0]);
        var headers = new List<KeyValuePair<string, string>>();
        foreach (string line in lines.Skip(1).Where(l => l.Length > 0))
        {
            int colon = line.IndexOf(':', StringComparison.Ordinal);
            headers.Add(new(line[..colon], line[(colon + 1)..].Trim()));
        }

        var response = new RawResponse(int.Parse(statusParts[1], System.Globalization.CultureInfo.InvariantCulture), headText, headers, []);
        int length = int.Parse(response.Header("Content-Length") ?? throw new InvalidDataException("No Content-Length."), System.Globalization.CultureInfo.InvariantCulture);
        if (headRequest)
        {
            return response;
        }

        byte[] body = new byte[length];
        await stream.ReadExactlyAsync(body, cancellationToken);
        return response with { Body = body };
    }

    private static bool EndsWithEmptyLine(List<byte> head) =>
        head.Count >= 4 && head[^4] == '\r' && head[^3] == '\n' && head[^2] == '\r' && head[^1] == '\n';

    private static async ValueTask<int> ReadByteAsync(Stream stream, CancellationToken cancellationToken)
    {
        byte[] one = new byte[1];
        int read = await stream.ReadAsync(one, cancellationToken);
        return read == 0 ? -1 : one[0];
    }
}
