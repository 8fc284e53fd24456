namespace PlatformBenchmarks.Http;

/// <summary>
/// What the parser learned from a request's head. Positions are offsets into the head's bytes, so the same value
/// describes the head whether it is read in place from the socket buffer or from a copy of it.
/// </summary>
internal struct RequestHead
{
    public HttpMethod Method;
    public HttpVersion Version;
    public bool KeepAlive;
    /// <summary>The client sent <c>Expect: 100-continue</c> and may wait for an interim response before its body.</summary>
    public bool ExpectContinue;
    public BodyKind BodyKind;
    public int MethodLength;
    public int TargetStart;
    public int TargetLength;
    public int PathStart;
    public int PathLength;
    /// <summary>Start of the query after '?', or -1 when the target has none.</summary>
    public int QueryStart;
    public int QueryLength;
    public int HeaderCount;
    public long ContentLength;
}
