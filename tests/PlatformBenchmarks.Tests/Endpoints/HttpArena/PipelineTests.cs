using PlatformBenchmarks.Endpoints;
using PlatformBenchmarks.Routing;
using PlatformBenchmarks.Tests.Support;
using static PlatformBenchmarks.Tests.Endpoints.HttpArena.ArenaExchange;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>HttpArena's pipelined profile: <c>GET /pipeline</c> answers <c>ok</c>, sixteen at a time.</summary>
public class PipelineTests
{
    [Fact]
    public async Task SixteenPipelinedRequestsGetSixteenOksInOrder()
    {
        await using var connection = new PipeConnection<Router>(TestRouter.Create());
        await connection.SendAsync(string.Concat(Enumerable.Repeat(Get("/pipeline"), 16)));

        for (int i = 0; i < 16; i++)
        {
            RawResponse response = (await connection.ReadAsync())!;
            Assert.Equal(200, response.Status);
            Assert.Equal("ok", response.BodyText);
            Assert.StartsWith("text/plain", response.Header("Content-Type"), StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("/pipeline/")]
    [InlineData("/Pipeline")]
    [InlineData("/baseline11/")]
    public async Task NearMissesOfTheRoutesAre404(string path)
    {
        Assert.Equal(404, (await SendAsync(Get(path))).Status);
    }

    [Fact]
    public async Task AnUnknownMethodOnTheRoutesIs501()
    {
        Assert.Equal(501, (await SendAsync("BREW /pipeline HTTP/1.1\r\nHost: t\r\n\r\n")).Status);
    }
}
