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

        (int exitCode, string output, string error) = await RunServerAsync("--urls", url, "--Transport:Kind", kind);

        AssertAddressInUse(url, exitCode, output, error);
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

            (int exitCode, string output, string error) = await RunServerAsync("--urls", url, "--Transport:Kind", kind);

            AssertAddressInUse(url, exitCode, output, error);
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

    [Theory]
    [InlineData("http://127.0.0.1:abc", "no valid port")]
    [InlineData("http://127.0.0.1:70000", "no valid port")]
    [InlineData("http://:8080", "no valid host")]
    [InlineData("http://[zz]:8080", "no valid host")]
    [InlineData("https://127.0.0.1:8443", "not an http:// address")]
    [InlineData("127.0.0.1:8080", "not an http:// address")]
    public void AnAddressThatDoesNotParseIsASettingsErrorNamingIt(string url, string reason)
    {
        SettingsException exception = Assert.Throws<SettingsException>(() => Program.BuildApplication(["--urls", $"http://127.0.0.1:0;{url}"], new FakeTimeProvider()));

        Assert.Contains($"'{url}'", exception.Message, StringComparison.Ordinal);
        Assert.Contains(reason, exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("http://*:8080")]
    [InlineData("http://+:8080")]
    [InlineData("http://localhost")]
    [InlineData("http://[::1]:8080/")]
    [InlineData("http://127.0.0.1:0")]
    public void AddressesKestrelAcceptsAreAccepted(string url)
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

    private static void AssertAddressInUse(string url, int exitCode, string output, string error)
    {
        Assert.Equal(Program.SettingsExitCode, exitCode);
        Assert.Equal($"PlatformBenchmarks: Failed to bind to address {url}: address already in use.", error.Trim());
        Assert.DoesNotContain(" at ", output, StringComparison.Ordinal); // no stack trace anywhere
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

    private static async Task<(int ExitCode, string Output, string Error)> RunServerAsync(params string[] arguments)
    {
        using Process server = ServerProcess.Start(arguments);
        Task<string> output = server.StandardOutput.ReadToEndAsync();
        Task<string> error = server.StandardError.ReadToEndAsync();
        using var deadline = new CancellationTokenSource(TimeSpan.FromMinutes(1));
        try
        {
            await server.WaitForExitAsync(deadline.Token);
        }
        catch (OperationCanceledException)
        {
            server.Kill(entireProcessTree: true);
            throw;
        }

        return (server.ExitCode, await output, await error);
    }
}
