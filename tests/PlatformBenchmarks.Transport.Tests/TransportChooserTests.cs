namespace PlatformBenchmarks.Transport.Tests;

public class TransportChooserTests
{
    [Theory]
    [InlineData("auto", TransportKind.Auto)]
    [InlineData("IoUring", TransportKind.IoUring)]
    [InlineData("epoll", TransportKind.Epoll)]
    [InlineData("Sockets", TransportKind.Sockets)]
    public void KindNamesParseWithoutRegardToCase(string name, TransportKind expected)
    {
        Assert.True(Enum.TryParse(name, ignoreCase: true, out TransportKind kind));
        Assert.Equal(expected, kind);
    }

    [Theory]
    [InlineData(TransportKind.Auto, TransportKind.Epoll)]
    [InlineData(TransportKind.Epoll, TransportKind.Epoll)]
    [InlineData(TransportKind.Sockets, TransportKind.Sockets)]
    public void OnLinuxAutoAndEpollRunEpollAndSocketsRunsSockets(TransportKind requested, TransportKind expected)
    {
        Assert.Equal(expected, TransportChooser.Choose(requested).Kind);
    }

    [Fact]
    public void IoUringFallsBackToEpollAndSaysWhy()
    {
        TransportChoice choice = TransportChooser.Choose(TransportKind.IoUring);
        Assert.Equal(TransportKind.Epoll, choice.Kind);
        Assert.Contains("io_uring", choice.Reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(1025)]
    public void AThreadCountOutOfRangeIsRefusedNamingTheKey(int threads)
    {
        var options = new TransportOptions { ThreadCount = threads };
        ArgumentOutOfRangeException error = Assert.Throws<ArgumentOutOfRangeException>(options.Validate);
        Assert.Equal("Transport:ThreadCount", error.ParamName);
    }

    [Fact]
    public void ThreadCountZeroMeansOnePerProcessor() =>
        Assert.Equal(Environment.ProcessorCount, new TransportOptions().EffectiveThreadCount);
}
