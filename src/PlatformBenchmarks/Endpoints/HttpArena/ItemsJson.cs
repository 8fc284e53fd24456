using System.Text.Json;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// Writes <c>/json/{count}</c>'s answer, <c>{"items":[...],"count":N}</c>, per request from the dataset's items, each
/// with its <c>total</c> (price × quantity × m) computed as it is written. Written member by member with the property
/// names and the items' strings encoded once (<see cref="DatasetItem.Text"/>): against the source-generated serializer
/// over per-request item objects it measured faster with no allocation (docs/decisions/0003-httparena-json-and-compression.md).
/// </summary>
internal static class ItemsJson
{
    private static readonly JsonEncodedText s_items = JsonEncodedText.Encode("items");
    private static readonly JsonEncodedText s_id = JsonEncodedText.Encode("id");
    private static readonly JsonEncodedText s_name = JsonEncodedText.Encode("name");
    private static readonly JsonEncodedText s_category = JsonEncodedText.Encode("category");
    private static readonly JsonEncodedText s_price = JsonEncodedText.Encode("price");
    private static readonly JsonEncodedText s_quantity = JsonEncodedText.Encode("quantity");
    private static readonly JsonEncodedText s_active = JsonEncodedText.Encode("active");
    private static readonly JsonEncodedText s_tags = JsonEncodedText.Encode("tags");
    private static readonly JsonEncodedText s_rating = JsonEncodedText.Encode("rating");
    private static readonly JsonEncodedText s_score = JsonEncodedText.Encode("score");
    private static readonly JsonEncodedText s_count = JsonEncodedText.Encode("count");
    private static readonly JsonEncodedText s_total = JsonEncodedText.Encode("total");

    /// <summary>The caller has checked that no total overflows (<see cref="Dataset.MaxProduct"/>).</summary>
    public static void Write(Utf8JsonWriter writer, ReadOnlySpan<DatasetItem> items, long multiplier)
    {
        writer.WriteStartObject();
        writer.WriteStartArray(s_items);
        foreach (DatasetItem item in items)
        {
            DatasetItemText text = item.Text;
            writer.WriteStartObject();
            writer.WriteNumber(s_id, item.Id);
            writer.WriteString(s_name, text.Name);
            writer.WriteString(s_category, text.Category);
            writer.WriteNumber(s_price, item.Price);
            writer.WriteNumber(s_quantity, item.Quantity);
            writer.WriteBoolean(s_active, item.Active);
            writer.WriteStartArray(s_tags);
            foreach (JsonEncodedText tag in text.Tags)
            {
                writer.WriteStringValue(tag);
            }

            writer.WriteEndArray();
            writer.WriteStartObject(s_rating);
            writer.WriteNumber(s_score, item.Rating.Score);
            writer.WriteNumber(s_count, item.Rating.Count);
            writer.WriteEndObject();
            writer.WriteNumber(s_total, item.Price * item.Quantity * multiplier);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteNumber(s_count, items.Length);
        writer.WriteEndObject();
    }
}
