using System.Diagnostics;
using System.Text;

namespace PlatformBenchmarks.Tests.Support;

internal sealed record ProcessResult(int ExitCode, string Output, string Error)
{
    /// <summary>Everything the process printed, for assertion messages.</summary>
    public override string ToString() => $"exit code {ExitCode}\n--- stdout ---\n{Output}\n--- stderr ---\n{Error}";
}

/// <summary>Runs the repository's scripts (bash, python3) the way a person would, from the repository root.</summary>
internal static class ChildProcess
{
    /// <param name="environment">Variables to set in the inherited environment.</param>
    public static async Task<ProcessResult> RunAsync(
        string fileName, IEnumerable<string> arguments, TimeSpan timeout, string? input = null, IReadOnlyDictionary<string, string>? environment = null)
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = Repository.Root,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = input is not null,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        using Process process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {fileName}.");
        var output = new StringBuilder();
        var error = new StringBuilder();
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) { lock (output) { output.AppendLine(e.Data); } } };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) { lock (error) { error.AppendLine(e.Data); } } };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (input is not null)
        {
            await process.StandardInput.WriteAsync(input);
            process.StandardInput.Close();
        }

        using var cancellation = new CancellationTokenSource(timeout);
        try
        {
            await process.WaitForExitAsync(cancellation.Token); // also waits for the redirected streams to end
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{fileName} {string.Join(' ', arguments)} did not finish within {timeout}:\n{output}\n{error}");
        }

        lock (output)
        {
            lock (error)
            {
                return new ProcessResult(process.ExitCode, output.ToString(), error.ToString());
            }
        }
    }
}
