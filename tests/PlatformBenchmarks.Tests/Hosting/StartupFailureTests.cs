using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Time.Testing;
using PlatformBenchmarks.Hosting;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Hosting;

/// <summary>A server that cannot start says why in one line naming the address, and exits with the settings code.</summary>
public class StartupFailureTests
{
    private const int SolSocket = 1;
    private const int SoReusePort = 15;

    [Theory]
    [InlineData("IoUring", false)]
    [InlineData("Epoll", false)]
    [InlineData("Sockets", false)]
    [InlineData("IoUring", true)]
    [InlineData("Epoll", true)]
    [InlineData("Sockets", true)]
    public async Task APortAlreadyInUseStopsTheServerWithOneLineAndExitCode2(string kind, bool occupantSharesWithReusePort)
    {
        // With SO_REUSEPORT the server's own SO_REUSEPORT sockets could join the occupant's group and share its connections.
        using var occupant = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        if (occupantSharesWithReusePort)
        {
            occupant.SetRawSocketOption(SolSocket, SoReusePort, BitConverter.GetBytes(1));
        }

        occupant.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        occupant.Listen();
        string url = $"http://127.0.0.1:{((IPEndPoint)occupant.LocalEndPoint!).Port}";

        ProcessResult server = await ServerProcess.RunToExitAsync(["--urls", url, "--Transport:Kind", kind]);

        AssertAddressInUse(url, server);
    }

    [Theory]
    [InlineData("IoUring")]
    [InlineData("Epoll")]
    public async Task ASecondServerOnThePortStopsTheSameWayAndTheFirstAnswersEveryConnection(string kind)
    {
        int port = ServerProcess.FreePort();
        string url = $"http://127.0.0.1:{port}";
        using Process first = ServerProcess.Start(["--urls", url, "--Transport:Kind", kind]);
        try
        {
            await ServerProcess.WaitForBannerAsync(first, TimeSpan.FromMinutes(1));

            ProcessResult server = await ServerProcess.RunToExitAsync(["--urls", url, "--Transport:Kind", kind]);

            AssertAddressInUse(url, server);
            // Each connection is answered, so none waits in an accept queue of the second server's.
            int[] statuses = await Task.WhenAll(Enumerable.Range(0, 16).Select(_ => PlaintextAsync(port)));
            Assert.All(statuses, status => Assert.Equal(200, status));
        }
        finally
        {
            first.Kill(entireProcessTree: true);
            await first.WaitForExitAsync();
        }
    }

    public static TheoryData<string, string> AddressesThatDoNotParse => new()
    {
        { "http://127.0.0.1:abc", "no valid port" },
        { "http://127.0.0.1:70000", "no valid port" },
        { "http://:8080", "no valid host" },
        { "http://[zz]:8080", "no valid host" },
        { "http://256.1.1.1:8097", "no valid host" },
        { "http://1.2.3:8080", "no valid host" },
        { "http://127.1:8080", "no valid host" },
        { "http://010.0.0.1:8080", "no valid host" },
        { "http://0x7f.0.0.1:8080", "no valid host" },
        { "http://[127.0.0.1]:8080", "no valid host" },
        { "http://::1:8080", "no valid host" },
        { "http://example:8080", "no valid host" },
        { "http://user@127.0.0.1:8080", "no valid host" },
        { "http://127.0.0.1:8080/base", "has a path" },
        { "ftp://127.0.0.1:8443", "not an http://, https:// or h2c:// address" },
        { "127.0.0.1:8080", "not an http://, https:// or h2c:// address" },
    };

    [Theory]
    [MemberData(nameof(AddressesThatDoNotParse))]
    public void AnAddressThatDoesNotParseIsASettingsErrorNamingIt(string url, string reason)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => Program.BuildApplication(["--urls", $"http://127.0.0.1:0;{url}"], new FakeTimeProvider()));

        Assert.Contains($"'{url}'", exception.Message, StringComparison.Ordinal);
        Assert.Contains(reason, exception.Message, StringComparison.Ordinal);
    }

    /// <summary>Kestrel would listen on every interface for an address whose host is no IP literal (<c>[::]:8097</c>).</summary>
    [Theory]
    [MemberData(nameof(AddressesThatDoNotParse))]
    public async Task AnAddressThatDoesNotParseStopsTheServerWithOneLineAndExitCode2(string url, string reason)
    {
        ProcessResult server = await ServerProcess.RunToExitAsync(["--urls", url]);

        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.StartsWith($"PlatformBenchmarks: Configuration 'urls': '{url}' ", server.Error, StringComparison.Ordinal);
        Assert.Contains(reason, server.Error, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', server.Error.Trim());
        Assert.Empty(server.Output);
    }

    [Fact]
    public void AnEmptyAddressListIsASettingsError()
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => ServerSettings.CheckUrls(" ; "));

        Assert.Equal("Configuration 'urls' names no address.", exception.Message);
    }

    [Theory]
    [InlineData("http://*:8080")]
    [InlineData("http://+:8080")]
    [InlineData("http://localhost")]
    [InlineData("http://LocalHost:8080")]
    [InlineData("http://0.0.0.0:8080")]
    [InlineData("http://[::]:8080")]
    [InlineData("http://[::1]:8080/")]
    [InlineData("http://[fe80::1%2]:8080")]
    [InlineData("http://127.0.0.1:0")]
    [InlineData("http://255.255.255.255:1")]
    [InlineData("HTTP://10.0.0.2:8080;http://[::1]:8080")]
    [InlineData("https://127.0.0.1:8443")]
    [InlineData("http://*:8080;HTTPS://[::]:8081")]
    public void AddressesKestrelListensOnAsWrittenAreAccepted(string url)
    {
        Assert.Equal(url, ServerSettings.CheckUrls(url));
    }

    [Fact]
    public void PermissionDeniedOnAPortIsDescribedWithTheAddress()
    {
        var denied = new IOException("wrapped", new SocketException((int)SocketError.AccessDenied));

        string? line = StartupFailure.Describe(denied, "http://*:80");

        Assert.Equal("cannot listen on http://*:80: permission denied (ports below 1024 need privileges)", line);
    }

    [Fact]
    public void AFailureThatIsNotTheEnvironmentsIsLeftToCrashLoudly()
    {
        Assert.Null(StartupFailure.Describe(new InvalidOperationException("a bug"), "http://*:8080"));
    }

    private static void AssertAddressInUse(string url, ProcessResult server)
    {
        Assert.Equal(Program.SettingsExitCode, server.ExitCode);
        Assert.Equal($"PlatformBenchmarks: Failed to bind to address {url}: address already in use.", server.Error.Trim());
        Assert.DoesNotContain(" at ", server.Output, StringComparison.Ordinal); // no stack trace anywhere
    }

    /// <summary>One plaintext request on a fresh connection; returns the response's status.</summary>
    private static async Task<int> PlaintextAsync(int port)
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(IPAddress.Loopback, port);
        using var client = new RawClient(socket);
        await client.SendAsync("GET /plaintext HTTP/1.1\r\nHost: tfb-server\r\n\r\n");
        return (await client.ReadAsync())?.Status ?? 0;
    }
}
