using Npgsql;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Data;

/// <summary>
/// The local database has TFB's whole schema: besides world and fortune, the quoted "World" and "Fortune" that TFB's
/// create-postgres.sql also makes, with the same columns, so TFB's verifier (which reads "World" around its update
/// check) and any TFB entry run against it unchanged.
/// </summary>
[Collection(WorldTableTests.Name)]
[Trait(TestCategory.Name, TestCategory.System)]
public class SchemaTests
{
    [Theory]
    [InlineData("world", "World")]
    [InlineData("fortune", "Fortune")]
    public async Task QuotedTableHasTheColumnsOfItsUnquotedTwin(string unquoted, string quoted)
    {
        Assert.Equal(await ColumnsAsync(unquoted), await ColumnsAsync(quoted));
    }

    [Fact]
    public async Task QuotedFortuneHoldsTheSameRowsAsFortune()
    {
        Assert.Equal(
            await RowsAsync("SELECT id, message FROM fortune ORDER BY id"),
            await RowsAsync("SELECT id, message FROM \"Fortune\" ORDER BY id"));
    }

    [Fact]
    public async Task QuotedWorldHoldsTenThousandRowsOfTfbRange()
    {
        // The update tests change world's numbers, so the two tables are compared by shape, not value.
        IReadOnlyList<string> summary = await RowsAsync(
            "SELECT count(*), min(id), max(id), count(DISTINCT id), min(randomnumber) >= 1 AND max(randomnumber) <= 10000 FROM \"World\"");
        Assert.Equal(["10000|1|10000|10000|True"], summary);
    }

    private static async Task<IReadOnlyList<string>> ColumnsAsync(string table)
        => await RowsAsync($"SELECT column_name, data_type, character_maximum_length, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '{table}' ORDER BY ordinal_position");

    private static async Task<IReadOnlyList<string>> RowsAsync(string sql)
    {
        await using NpgsqlConnection connection = await TestDatabase.OpenDirectAsync();
        await using var command = new NpgsqlCommand(sql, connection);
        await using NpgsqlDataReader reader = await command.ExecuteReaderAsync();
        var rows = new List<string>();
        while (await reader.ReadAsync())
        {
            rows.Add(string.Join('|', Enumerable.Range(0, reader.FieldCount).Select(i => Convert.ToString(reader.GetValue(i), System.Globalization.CultureInfo.InvariantCulture))));
        }

        Assert.NotEmpty(rows);
        return rows;
    }
}
