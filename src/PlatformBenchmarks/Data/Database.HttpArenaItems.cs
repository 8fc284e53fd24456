using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    // HttpArena's async-database statement as its implementation.md gives it: no ORDER BY, and no index on price.
    private const string ItemsByPriceSql =
        "SELECT id, name, category, price, quantity, active, tags, rating_score, rating_count FROM items WHERE price BETWEEN $1 AND $2 LIMIT $3";

    /// <summary>
    /// Up to <paramref name="limit"/> (1..<see cref="HttpArenaItem.MaxPerRequest"/>) items whose price lies between
    /// <paramref name="minPrice"/> and <paramref name="maxPrice"/> inclusive, in the order PostgreSQL returns them; one statement.
    /// </summary>
    public ValueTask<DataResult<List<HttpArenaItem>>> LoadHttpArenaItemsAsync(int minPrice, int maxPrice, int limit)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(limit, HttpArenaItem.MaxPerRequest);
        return CallAsync((minPrice, maxPrice, limit), static (database, query) => database.ReadItemsAsync(query.minPrice, query.maxPrice, query.limit));
    }

    private async ValueTask<DataResult<List<HttpArenaItem>>> ReadItemsAsync(int minPrice, int maxPrice, int limit)
    {
        NpgsqlCommand command = _itemCommands.Rent();
        SetInt(command.Parameters, 0, minPrice);
        SetInt(command.Parameters, 1, maxPrice);
        SetInt(command.Parameters, 2, limit);
        var items = new List<HttpArenaItem>(limit);
        await using (NpgsqlDataReader reader = await command.ExecuteReaderAsync())
        {
            while (await reader.ReadAsync())
            {
                items.Add(new HttpArenaItem(
                    reader.GetInt32(0),
                    reader.GetString(1),
                    reader.GetString(2),
                    reader.GetInt32(3),
                    reader.GetInt32(4),
                    reader.GetBoolean(5),
                    reader.GetString(6),
                    reader.GetInt32(7),
                    reader.GetInt32(8)));
            }
        }

        _itemCommands.Return(command);
        return items;
    }
}
