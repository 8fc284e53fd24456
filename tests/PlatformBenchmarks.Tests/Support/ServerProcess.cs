using System.Diagnostics;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>The built server as its own process (as a user starts it), with no database: a refused port answers at once.</summary>
internal static class ServerProcess
{
    /// <summary>Starts <c>dotnet PlatformBenchmarks.dll</c> with <paramref name="arguments"/>, its output redirected.</summary>
    /// <param name="environment">Changes to the inherited environment: a null value removes the variable.</param>
    public static Process Start(IEnumerable<string> arguments, IReadOnlyDictionary<string, string?>? environment = null)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "PlatformBenchmarks.dll"));
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.ArgumentList.Add("--ConnectionString");
        start.ArgumentList.Add("Host=127.0.0.1;Port=1;Timeout=1");
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
}
