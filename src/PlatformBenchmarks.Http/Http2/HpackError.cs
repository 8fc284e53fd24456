namespace PlatformBenchmarks.Http.Http2;

/// <summary>What ended the decoding of a header block (RFC 7541 §6, RFC 9113 §4.3).</summary>
internal enum HpackError : byte
{
    None,

    /// <summary>
    /// The decoded header list is larger than SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113 §6.5.2). The block was decoded
    /// to its end without handing on the fields past the limit, so the dynamic table is still in step with the peer's:
    /// the connection may answer the stream (431) and go on. The only error that is not a COMPRESSION_ERROR.
    /// </summary>
    HeaderListTooLarge,

    /// <summary>An integer longer than any this decoder accepts (§5.1).</summary>
    IntegerOverflow,

    /// <summary>Index 0, or past the end of the static and dynamic tables (§2.3.3).</summary>
    InvalidIndex,

    /// <summary>A Huffman-coded string holds EOS, or its padding is longer than 7 bits or not all ones (§5.2).</summary>
    InvalidHuffman,

    /// <summary>A dynamic table size update after the first field of a block (§4.2).</summary>
    SizeUpdateNotAtStart,

    /// <summary>A dynamic table size update above SETTINGS_HEADER_TABLE_SIZE (§6.3).</summary>
    SizeUpdateTooLarge,

    /// <summary>The first block after this side lowered SETTINGS_HEADER_TABLE_SIZE did not start with a size update (§4.2).</summary>
    SizeUpdateMissing,

    /// <summary>A string literal longer than the header list can hold: it is refused before it is buffered.</summary>
    StringTooLong,

    /// <summary>The block ended inside a field representation.</summary>
    Truncated,
}
