using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>A small dataset in the venue's shape, as a file and as the router that serves it.</summary>
internal static class TestDataset
{
    public const string Json = """
        [
          {"id": 1, "name": "Alpha Widget", "category": "electronics", "price": 328, "quantity": 15, "active": true,
           "tags": ["sale", "heavy-duty"], "rating": {"score": 48, "count": 53}},
          {"id": 2, "name": "Pro \"Valve\" \u00e9", "category": "tools", "price": 347, "quantity": 95, "active": false,
           "tags": [], "rating": {"score": 15, "count": 259}},
          {"id": 3, "name": "Core Relay", "category": "books", "price": 309, "quantity": 4, "active": true,
           "tags": ["eco"], "rating": {"score": 1, "count": 7}}
        ]
        """;

    public static Dataset Load(string json)
    {
        string path = Path.GetTempFileName();
        try
        {
            File.WriteAllText(path, json);
            return Dataset.Load(path);
        }
        finally
        {
            File.Delete(path);
        }
    }

    /// <summary>The server's router over this dataset. The database routes are never asked here, so it has no database.</summary>
    public static Router Router(Dataset? dataset = null, long maxUploadSize = HttpArenaOptions.DefaultMaxUploadSize, ResponseCompression? compression = null)
        => TestRouter.Create(arena: new HttpArenaRoutes(dataset ?? Load(Json), maxUploadSize, compression: compression));
}
