using System.Text;
using KestrelHttp = Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http;

namespace PlatformBenchmarks.Benchmarks.Parsing;

/// <summary>What Kestrel's parser reported for the last request it parsed.</summary>
internal sealed class KestrelParseRecord
{
    public KestrelHttp.HttpMethod Method;
    public KestrelHttp.HttpVersion Version;
    public int PathLength;
    public int HeaderCount;
    public int HeaderBytes;
    public bool HeadersComplete;

    /// <summary>Set to make the handler copy the path out (set-up checks only; the measured parses leave it off).</summary>
    public bool CapturePath;
    public string? Path;
}

/// <summary>
/// The request handler Kestrel's <c>HttpParser&lt;T&gt;</c> calls back. A struct over a record object, the same shape
/// Kestrel gives its own handler, so the parser is specialised for it and its callbacks are direct calls; it does
/// the least a server must (remember the start line, count and size the fields), so the baseline measures the
/// parser itself.
/// </summary>
internal readonly struct KestrelRequestHandler : KestrelHttp.IHttpRequestLineHandler, KestrelHttp.IHttpHeadersHandler
{
    private readonly KestrelParseRecord _record;

    public KestrelRequestHandler(KestrelParseRecord record) => _record = record;

    public void OnStartLine(KestrelHttp.HttpVersionAndMethod versionAndMethod, KestrelHttp.TargetOffsetPathLength targetPath, Span<byte> startLine)
    {
        KestrelParseRecord record = _record;
        record.Method = versionAndMethod.Method;
        record.Version = versionAndMethod.Version;
        record.PathLength = targetPath.Length;
        record.HeaderCount = 0;
        record.HeaderBytes = 0;
        record.HeadersComplete = false;
        if (record.CapturePath)
        {
            record.Path = Encoding.ASCII.GetString(startLine.Slice(targetPath.Offset, targetPath.Length));
        }
    }

    public void OnHeader(ReadOnlySpan<byte> name, ReadOnlySpan<byte> value)
    {
        KestrelParseRecord record = _record;
        record.HeaderCount++;
        record.HeaderBytes += name.Length + value.Length;
    }

    public void OnHeadersComplete(bool endStream) => _record.HeadersComplete = true;

    // HPACK/QPACK callbacks: never called for HTTP/1.1.
    public void OnStaticIndexedHeader(int index)
    {
    }

    public void OnStaticIndexedHeader(int index, ReadOnlySpan<byte> value)
    {
    }
}
