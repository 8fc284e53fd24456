using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>The built server as its own process (as a user starts it), with no database unless given: a refused port answers at once.</summary>
internal static class ServerProcess
{
    /// <summary>Starts <c>dotnet PlatformBenchmarks.dll</c> with <paramref name="arguments"/>, its output redirected.</summary>
    /// <param name="environment">Changes to the inherited environment: a null value removes the variable.</param>
    /// <param name="connectionString">The database; by default a refused port, so that no start-up waits for one.</param>
    public static Process Start(IEnumerable<string> arguments, IReadOnlyDictionary<string, string?>? environment = null, string connectionString = "Host=127.0.0.1;Port=1;Timeout=1")
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "PlatformBenchmarks.dll"));
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.ArgumentList.Add("--ConnectionString");
        start.ArgumentList.Add(connectionString);
        foreach ((string name, string? value) in environment ?? new Dictionary<string, string?>())
        {
            if (value is null)
            {
                start.Environment.Remove(name);
            }
            else
            {
                start.Environment[name] = value;
            }
        }

        return Process.Start(start) ?? throw new InvalidOperationException("Could not start the server.");
    }

    /// <summary>Runs the server with <paramref name="arguments"/> until it exits by itself (at most a minute: then it is killed).</summary>
    public static async Task<ProcessResult> RunToExitAsync(IEnumerable<string> arguments, IReadOnlyDictionary<string, string?>? environment = null)
    {
        using Process server = Start(arguments, environment);
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

        return new ProcessResult(server.ExitCode, await output, await error);
    }

    /// <summary>Starts the server on a free loopback port, reads its start-up banner (<see cref="WaitForBannerAsync"/>) and stops it.</summary>
    public static async Task<string> ReadBannerAsync(IReadOnlyDictionary<string, string?>? environment = null)
    {
        using Process server = Start(["--urls", $"http://127.0.0.1:{FreePort()}"], environment);
        try
        {
            return await WaitForBannerAsync(server, TimeSpan.FromMinutes(1));
        }
        finally
        {
            server.Kill(entireProcessTree: true);
            await server.WaitForExitAsync();
        }
    }

    /// <summary>Reads the server's start-up banner up to its last line (<c>Cache:</c>), after which it answers; returns the banner.</summary>
    public static async Task<string> WaitForBannerAsync(Process server, TimeSpan timeout)
    {
        var banner = new StringBuilder();
        using var startUp = new CancellationTokenSource(timeout);
        while (await server.StandardOutput.ReadLineAsync(startUp.Token) is string line)
        {
            banner.AppendLine(line);
            if (line.TrimStart().StartsWith("Cache:", StringComparison.Ordinal))
            {
                return banner.ToString();
            }
        }

        throw new InvalidOperationException($"The server ended before it was up:\n{banner}{await server.StandardError.ReadToEndAsync(startUp.Token)}");
    }

    /// <summary>Reads the server's output up to the first line holding <paramref name="text"/>; returns every line read.</summary>
    public static async Task<List<string>> ReadUntilAsync(Process server, string text, TimeSpan timeout)
    {
        var lines = new List<string>();
        using var startUp = new CancellationTokenSource(timeout);
        while (await server.StandardOutput.ReadLineAsync(startUp.Token) is string line)
        {
            lines.Add(line);
            if (line.Contains(text, StringComparison.Ordinal))
            {
                return lines;
            }
        }

        throw new InvalidOperationException($"The server ended before printing '{text}':\n{string.Join('\n', lines)}{await server.StandardError.ReadToEndAsync(startUp.Token)}");
    }

    /// <summary>A loopback port nothing listens on right now.</summary>
    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
