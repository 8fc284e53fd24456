using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>The GC settings the built server runs with, as the runtime reports them in the server's own process.</summary>
public class GcSettingsTests
{
    [Fact]
    public async Task TheServerRunsWithGen0sBudgetCappedAtFourMebibytesPerHeap()
    {
        // The runtime reads the cap from the server's runtime configuration (the project file): the banner prints the
        // value the GC took, so a name the runtime does not know, or one shadowed elsewhere, fails here.
        string banner = await ServerProcess.ReadBannerAsync(new Dictionary<string, string?> { ["DOTNET_GCgen0MaxBudget"] = null, ["DOTNET_GCGen0MaxBudget"] = null });

        Assert.Contains("GC:         Server, ", banner, StringComparison.Ordinal);
        Assert.Contains(", gen0 budget at most 4096 KiB per heap\n", banner, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheServerRunsWithDynamicAdaptationOn()
    {
        // Server GC with DATAS: under connection churn only the heaps the load needs fill their gen0 budgets, not one per
        // CPU (docs/decisions/0017-connection-cost.md).
        string banner = await ServerProcess.ReadBannerAsync(new Dictionary<string, string?> { ["DOTNET_GCDynamicAdaptationMode"] = null });

        Assert.Contains("GC:         Server, ", banner, StringComparison.Ordinal);
        Assert.Contains(", dynamic adaptation on, ", banner, StringComparison.Ordinal);
    }
}
