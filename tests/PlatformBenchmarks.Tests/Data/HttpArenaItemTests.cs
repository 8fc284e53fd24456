using Npgsql;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>HttpArena's async-database read against the items table scripts/db.sh generates.</summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class HttpArenaItemTests
{
    [Theory]
    [InlineData(Mode.Multiplexing, 5, 80, 7)]
    [InlineData(Mode.Multiplexing, 20, 150, 18)]
    [InlineData(Mode.Multiplexing, 100, 400, 33)]
    [InlineData(Mode.Pooled, 10, 50, 50)]
    [InlineData(Mode.Pooled, 1, 500, 1)]
    public async Task TheReadReturnsUpToLimitItemsInThePriceRange(Mode mode, int min, int max, int limit)
    {
        List<HttpArenaItem> items = (await TestDatabase.Shared(mode).LoadHttpArenaItemsAsync(min, max, limit)).Value;

        Assert.Equal(limit, items.Count);
        Assert.All(items, item =>
        {
            Assert.InRange(item.Price, min, max);
            Assert.InRange(item.Quantity, 1, 1000);
            Assert.InRange(item.RatingScore, 1, 50);
            Assert.InRange(item.RatingCount, 1, 500);
            Assert.EndsWith($" {item.Id}", item.Name, StringComparison.Ordinal);
            Assert.StartsWith("[\"", item.Tags, StringComparison.Ordinal);
        });
        Assert.Equal(items.Count, items.Select(item => item.Id).Distinct().Count());
    }

    [Theory]
    [InlineData(9999, 9999)]
    [InlineData(50, 10)]
    public async Task ARangeWithoutItemsReturnsNone(int min, int max)
    {
        Assert.Empty((await TestDatabase.Shared(Mode.Multiplexing).LoadHttpArenaItemsAsync(min, max, 50)).Value);
    }

    [Fact]
    public async Task TheRowsAreTheTablesRowsAsStored()
    {
        List<HttpArenaItem> items = (await TestDatabase.Shared(Mode.Multiplexing).LoadHttpArenaItemsAsync(1, 500, 10)).Value;
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        foreach (HttpArenaItem item in items)
        {
            await using var command = new NpgsqlCommand("SELECT name, category, price, quantity, active, tags::text, rating_score, rating_count FROM items WHERE id = $1", connection);
            command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = item.Id });
            await using NpgsqlDataReader reader = await command.ExecuteReaderAsync();
            Assert.True(await reader.ReadAsync());
            Assert.Equal(
                new HttpArenaItem(item.Id, reader.GetString(0), reader.GetString(1), reader.GetInt32(2), reader.GetInt32(3), reader.GetBoolean(4), reader.GetString(5), reader.GetInt32(6), reader.GetInt32(7)),
                item);
        }
    }

    [Fact]
    public async Task TheTableIsTheVenuesShape()
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using var command = new NpgsqlCommand(
            "SELECT (SELECT count(*) FROM items), (SELECT min(price) FROM items), (SELECT max(price) FROM items), "
            + "(SELECT count(*) FROM pg_indexes WHERE tablename = 'items' AND indexdef LIKE '%(price%')", connection);
        await using NpgsqlDataReader reader = await command.ExecuteReaderAsync();
        Assert.True(await reader.ReadAsync());

        Assert.Equal(100_000L, reader.GetInt64(0));
        Assert.Equal(1, reader.GetInt32(1));
        Assert.Equal(500, reader.GetInt32(2));
        Assert.Equal(0L, reader.GetInt64(3));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(51)]
    public async Task ALimitOutsideTheVenuesRangeIsABug(int limit)
    {
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => TestDatabase.Shared(Mode.Multiplexing).LoadHttpArenaItemsAsync(1, 2, limit).AsTask());
    }
}
