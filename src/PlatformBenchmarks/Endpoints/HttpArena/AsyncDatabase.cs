using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// HttpArena's async-database profile: <c>GET /async-db?min=&amp;max=&amp;limit=</c> answers the items priced between min
/// and max, at most limit of them, as <c>{"items":[…],"count":N}</c>, each item with its rating columns nested as
/// <c>"rating":{"score":…,"count":…}</c> (its validation.md). Bad parameters get 400 with the reason; an unreachable
/// database 503, as the TFB routes do (<see cref="DatabaseErrors"/>), rather than the venue's suggested empty list,
/// which would look like a price range without items.
/// </summary>
internal static class AsyncDatabase
{
    public static ValueTask Handle(HttpRequest request, HttpResponse response, Database? database)
    {
        if (!AsyncDatabaseQuery.TryParse(request.Query, out AsyncDatabaseQuery query, out string? error))
        {
            response.WriteText(HttpStatus.BadRequest, Encoding.UTF8.GetBytes(error));
            return default;
        }

        if (database is null)
        {
            response.WriteText(HttpStatus.ServiceUnavailable, "No database configured.\n"u8);
            return default;
        }

        return HandleAsync(response, database, query);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private static async ValueTask HandleAsync(HttpResponse response, Database database, AsyncDatabaseQuery query)
    {
        if (!(await database.LoadHttpArenaItemsAsync(query.Min, query.Max, query.Limit)).TryGetValue(out List<HttpArenaItem>? items, out DataFailure? failure))
        {
            DatabaseErrors.Write(response, failure);
            return;
        }

        Write(response.StartJson(), items);
        response.WriteBuffered(HttpStatus.Ok, MediaTypes.Json);
    }

    /// <summary>The answer's JSON, in the venue's key order; count is the number of items written.</summary>
    internal static void Write(Utf8JsonWriter writer, List<HttpArenaItem> items)
    {
        writer.WriteStartObject();
        writer.WriteStartArray("items"u8);
        foreach (HttpArenaItem item in items)
        {
            writer.WriteStartObject();
            writer.WriteNumber("id"u8, item.Id);
            writer.WriteString("name"u8, item.Name);
            writer.WriteString("category"u8, item.Category);
            writer.WriteNumber("price"u8, item.Price);
            writer.WriteNumber("quantity"u8, item.Quantity);
            writer.WriteBoolean("active"u8, item.Active);
            writer.WritePropertyName("tags"u8);
            // jsonb as PostgreSQL renders it; checked on the way out, so that a row holding something odd cannot break the answer.
            writer.WriteRawValue(item.Tags);
            writer.WriteStartObject("rating"u8);
            writer.WriteNumber("score"u8, item.RatingScore);
            writer.WriteNumber("count"u8, item.RatingCount);
            writer.WriteEndObject();
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteNumber("count"u8, items.Count);
        writer.WriteEndObject();
    }
}
