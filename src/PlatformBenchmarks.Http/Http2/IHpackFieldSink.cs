namespace PlatformBenchmarks.Http.Http2;

/// <summary>
/// Where <see cref="HpackDecoder"/> hands the fields of a header block, in order. A struct implements it, so the call
/// is direct; the spans are valid only during the call.
/// </summary>
internal interface IHpackFieldSink
{
    /// <param name="staticNameIndex">
    /// The static table's index of an entry with this name (RFC 7541 Appendix A) when the peer named the field by such an
    /// index, directly or through a dynamic entry that did; 0 when the name came as a literal. A name with an index is
    /// known to be lowercase and a token, so the sink need not check it.
    /// </param>
    /// <param name="neverIndexed">The field came as a literal never indexed (§6.2.3): an intermediary must keep it so.</param>
    void OnField(int staticNameIndex, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value, bool neverIndexed);
}
