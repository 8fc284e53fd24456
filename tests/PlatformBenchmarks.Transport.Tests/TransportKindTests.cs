using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Transport.Tests;

public class TransportKindTests
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
}
