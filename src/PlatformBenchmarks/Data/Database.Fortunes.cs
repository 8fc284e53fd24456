using Npgsql;

namespace PlatformBenchmarks.Data;

internal sealed partial class Database
{
    /// <summary>
    /// Every row of the fortune table, unsorted. The caller adds the request-time fortune and sorts
    /// (<see cref="Fortune.AddAdditionalAndSort"/>).
    /// </summary>
    /// <param name="loop">The loop the caller runs on, if any: on its thread the read joins the loop's batch.</param>
    public ValueTask<DataResult<List<Fortune>>> LoadFortunesAsync(DataLoop loop = default)
        => Lane(loop) is { } lane ? lane.LoadFortunesAsync() : CallAsync(static database => database.ReadFortunesAsync());

    private async ValueTask<DataResult<List<Fortune>>> ReadFortunesAsync()
    {
        NpgsqlCommand command = _fortuneCommands.Rent();
        // Grows as rows arrive: the list must not be sized from the known row count (docs/tfb-rules.md §4.5).
        var fortunes = new List<Fortune>();
        await using (NpgsqlDataReader reader = await command.ExecuteReaderAsync())
        {
            while (await reader.ReadAsync())
            {
                fortunes.Add(new Fortune(reader.GetInt32(0), reader.GetString(1)));
            }
        }

        _fortuneCommands.Return(command);
        return fortunes;
    }
}
