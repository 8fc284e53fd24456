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

    [Theory]
    [InlineData(null, "off")]
    [InlineData("1", "on")]
    public async Task DynamicAdaptationIsOffUnlessTheEnvironmentTurnsItOn(string? mode, string expected)
    {
        // The project file keeps DATAS off for TFB's steady connections; HttpArena's image sets the variable to 1 for its
        // connection churn (docs/decisions/0017-connection-cost.md). The banner reports what the GC took.
        string banner = await ServerProcess.ReadBannerAsync(new Dictionary<string, string?> { ["DOTNET_GCDynamicAdaptationMode"] = mode });

        Assert.Contains("GC:         Server, ", banner, StringComparison.Ordinal);
        Assert.Contains($", dynamic adaptation {expected}, ", banner, StringComparison.Ordinal);
    }
}
