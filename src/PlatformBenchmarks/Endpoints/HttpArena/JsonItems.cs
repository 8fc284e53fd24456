using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// HttpArena's json and json-compressed profiles: <c>GET /json/{count}?m={multiplier}</c> answers the first count items
/// of the dataset, each with <c>total = price × quantity × m</c>, serialised per request (<see cref="ItemsJson"/>) and
/// sent in the content coding the request's Accept-Encoding asks for (<see cref="AcceptEncoding"/>,
/// <see cref="ResponseCompression"/>). A count past the dataset's size gives every item, and the answer's
/// <c>count</c> says how many; a missing or empty m is 1. A count or an m that is not an integer, a negative count, or an
/// m that would take a total past 64 bits gets 400; a dataset that could not be read, 503.
/// </summary>
internal static class JsonItems
{
    /// <summary>Answers <c>/json/</c> and <paramref name="countSegment"/>, whatever it holds: a bad count is a 400 here, not a 404.</summary>
    public static void Answer(ReadOnlySpan<byte> countSegment, HttpRequest request, HttpResponse response, Dataset dataset, ResponseCompression compression)
    {
        if (!dataset.IsAvailable)
        {
            response.WriteText(HttpStatus.ServiceUnavailable, dataset.Refusal);
            return;
        }

        if (!Baseline.TryParse(countSegment, out long count) || count < 0)
        {
            response.WriteText(HttpStatus.BadRequest, "The count must be an integer of 0 or more.\n"u8);
            return;
        }

        Span<byte> scratch = stackalloc byte[32];
        ReadOnlySpan<byte> m = QueryString.GetValue(request.Query, "m"u8, scratch);
        long multiplier = 1;
        if (!m.IsEmpty && !Baseline.TryParse(m, out multiplier))
        {
            response.WriteText(HttpStatus.BadRequest, "Query parameter 'm' must be an integer.\n"u8);
            return;
        }

        // |price × quantity| ≤ MaxProduct for every item, so |total| ≤ MaxProduct × |m|, which must fit in 64 bits.
        ulong magnitude = multiplier < 0 ? (ulong)(-(multiplier + 1)) + 1 : (ulong)multiplier;
        if (dataset.MaxProduct > 0 && magnitude > (ulong)long.MaxValue / (ulong)dataset.MaxProduct)
        {
            response.WriteText(HttpStatus.BadRequest, "Query parameter 'm' is too large: a total would not fit in a 64-bit integer.\n"u8);
            return;
        }

        ContentCoding coding = AcceptEncoding.Read(request).Choose(brotliAvailable: true, gzipAvailable: true, preferred: ContentCoding.Gzip);
        DatasetItem[] items = dataset.Items;
        ItemsJson.Write(response.StartJson(), items.AsSpan(0, (int)Math.Min(count, items.Length)), multiplier);
        compression.Write(response, MediaTypes.Json, response.BufferedBody, coding);
    }
}
