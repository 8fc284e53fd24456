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
    [Theory]
    [InlineData("IoUring")]
    [InlineData("Epoll")]
    [InlineData("Sockets")]
    public async Task APortAlreadyInUseStopsTheServerWithOneLineAndExitCode2(string kind)
    {
        using var occupant = new TcpListener(IPAddress.Loopback, 0);
        occupant.Start();
        string url = $"http://127.0.0.1:{((IPEndPoint)occupant.LocalEndpoint).Port}";

        (int exitCode, string output, string error) = await RunServerAsync("--urls", url, "--Transport:Kind", kind);

        Assert.Equal(Program.SettingsExitCode, exitCode);
        Assert.Equal($"PlatformBenchmarks: Failed to bind to address {url}: address already in use.", error.Trim());
        Assert.DoesNotContain(" at ", output, StringComparison.Ordinal); // no stack trace anywhere
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
