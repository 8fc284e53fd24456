using PlatformBenchmarks.Endpoints.HttpArena;

namespace PlatformBenchmarks.Tests.Endpoints.HttpArena;

/// <summary>Reading the venue's dataset at start-up: every member required, anything else a reason to answer 503.</summary>
public class DatasetTests
{
    [Fact]
    public void TheVenuesShapeIsReadWithEveryMember()
    {
        Dataset dataset = TestDataset.Load(TestDataset.Json);

        Assert.True(dataset.IsAvailable, dataset.Problem);
        Assert.Equal(3, dataset.Items.Length);
        Assert.Equal(["sale", "heavy-duty"], dataset.Items[0].Tags);
        Assert.Equal(259, dataset.Items[1].Rating.Count);
        Assert.Equal(347 * 95, dataset.MaxProduct);
        Assert.StartsWith("3 items from ", dataset.Description, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("", "could not be read")]
    [InlineData("{}", "could not be read")]
    [InlineData("null", "holds null")]
    [InlineData("[null]", "an item is null")]
    [InlineData("""[{"id": 1, "name": "a", "category": "b", "price": 1.5, "quantity": 1, "active": true, "tags": [], "rating": {"score": 1, "count": 1}}]""", "could not be read")]
    [InlineData("""[{"id": 1, "name": "a", "category": "b", "quantity": 1, "active": true, "tags": [], "rating": {"score": 1, "count": 1}}]""", "price")]
    [InlineData("""[{"id": 1, "name": null, "category": "b", "price": 1, "quantity": 1, "active": true, "tags": [], "rating": {"score": 1, "count": 1}}]""", "could not be read")]
    [InlineData("""[{"id": 7, "name": "a", "category": "b", "price": 9223372036854775807, "quantity": 2, "active": true, "tags": [], "rating": {"score": 1, "count": 1}}]""", "item 7 does not fit")]
    public void AFileNotInTheVenuesShapeLeavesTheDatasetUnavailableWithTheReason(string json, string reason)
    {
        Dataset dataset = TestDataset.Load(json);

        Assert.False(dataset.IsAvailable);
        Assert.Contains(reason, dataset.Problem, StringComparison.Ordinal);
        Assert.Empty(dataset.Items);
        Assert.StartsWith("UNAVAILABLE (/json/{count} answers 503): ", dataset.Description, StringComparison.Ordinal);
    }

    [Fact]
    public void AMissingFileLeavesTheDatasetUnavailableNamingThePath()
    {
        var dataset = Dataset.Load("/nonexistent/dataset.json");

        Assert.False(dataset.IsAvailable);
        Assert.StartsWith("/nonexistent/dataset.json could not be read: ", dataset.Problem, StringComparison.Ordinal);
    }
}
