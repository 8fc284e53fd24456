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

    private static string? Available() => null;

    [Theory]
    [InlineData(TransportKind.Auto, TransportKind.IoUring)]
    [InlineData(TransportKind.IoUring, TransportKind.IoUring)]
    [InlineData(TransportKind.Epoll, TransportKind.Epoll)]
    [InlineData(TransportKind.Sockets, TransportKind.Sockets)]
    public void OnLinuxWithEveryKindAvailableEachRunsWhatItNamesAndAutoRunsIoUring(TransportKind requested, TransportKind expected)
    {
        Assert.Equal(expected, TransportChooser.Choose(requested, linux: true, Available, Available).Kind);
    }

    [Theory]
    [InlineData(TransportKind.Auto)]
    [InlineData(TransportKind.IoUring)]
    public void WhereIoUringIsRefusedItFallsBackToEpollAndTheReasonCarriesTheErrno(TransportKind requested)
    {
        TransportChoice choice = TransportChooser.Choose(requested, linux: true, () => "io_uring_setup: errno 1", Available);
        Assert.Equal(TransportKind.Epoll, choice.Kind);
        Assert.Contains("io_uring unavailable (io_uring_setup: errno 1), epoll instead", choice.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void WhereNeitherLoopCanRunSocketsRunWithBothReasons()
    {
        TransportChoice choice = TransportChooser.Choose(TransportKind.Auto, linux: true, () => "io_uring_setup: errno 38", () => "epoll_create1: errno 24");
        Assert.Equal(TransportKind.Sockets, choice.Kind);
        Assert.Contains("errno 38", choice.Reason, StringComparison.Ordinal);
        Assert.Contains("errno 24", choice.Reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(TransportKind.Auto)]
    [InlineData(TransportKind.IoUring)]
    [InlineData(TransportKind.Epoll)]
    public void OffLinuxEveryKindRunsSockets(TransportKind requested)
    {
        Assert.Equal(TransportKind.Sockets, TransportChooser.Choose(requested, linux: false, Available, Available).Kind);
    }

    [Fact]
    public void OnThisMachineAutoNeverPicksSocketsOnLinux()
    {
        TransportChoice choice = TransportChooser.Choose(TransportKind.Auto);
        Assert.Equal(OperatingSystem.IsLinux(), choice.Kind is TransportKind.IoUring or TransportKind.Epoll);
    }

    [Fact]
    public void ThreadCountZeroMeansOnePerProcessor() =>
        Assert.Equal(Environment.ProcessorCount, new LinuxTransportOptions().EffectiveThreadCount);
}
