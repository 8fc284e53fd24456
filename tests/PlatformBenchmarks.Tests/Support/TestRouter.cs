using PlatformBenchmarks.Endpoints.Tfb;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Endpoints.Conformance;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Routing;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>The server's three modules in the server's order, over what a test gives them.</summary>
internal static class TestRouter
{
    /// <summary>
    /// A router as the server builds it. Without a database, a path that reached a database handler would fail with a
    /// 500; without <paramref name="arena"/>, HttpArena's routes have no dataset (503) and no static directory (404).
    /// </summary>
    public static Router Create(Database? database = null, WorldCache? cache = null, HttpArenaRoutes? arena = null) =>
        new(new RouteTable(
            new TfbRoutes(database!, cache!),
            arena ?? new HttpArenaRoutes(Dataset.Unavailable("no dataset is configured"), HttpArenaOptions.DefaultMaxUploadSize, database: database),
            new ConformanceRoutes()));
}
