using System.Runtime.Versioning;
using PlatformBenchmarks.Tests.Support;

namespace PlatformBenchmarks.Tests.Scripts;

/// <summary>
/// A temporary folder of stand-in commands put first on a script's PATH, so that a script's own logic runs for real while
/// what it calls (dotnet, db.sh through bash) only says how it was called. Deleted on dispose.
/// </summary>
[UnsupportedOSPlatform("windows")] // the scripts are bash
internal sealed class StubCommands : IDisposable
{
    public string Folder { get; } = Directory.CreateTempSubdirectory("pb-stubs-").FullName;

    /// <summary>Writes <paramref name="name"/> as a shell script with <paramref name="body"/>.</summary>
    public string Write(string name, string body)
    {
        string path = Path.Combine(Folder, name);
        File.WriteAllText(path, $"#!/bin/sh\n{body}\n");
        File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        return path;
    }

    /// <summary>Runs a script with <c>/bin/bash</c> from the repository root, the stand-ins first on PATH.</summary>
    public Task<ProcessResult> RunAsync(IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null)
        => RunAsync("/bin/bash", arguments, environment);

    /// <summary>Runs <paramref name="program"/> from the repository root, the stand-ins first on PATH.</summary>
    public Task<ProcessResult> RunAsync(string program, IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null)
    {
        var variables = new Dictionary<string, string>(environment ?? new Dictionary<string, string>())
        {
            ["PATH"] = $"{Folder}:{Environment.GetEnvironmentVariable("PATH")}",
        };

        // A guard against a script that never ends, not a measure: each finishes in a second or two.
        return ChildProcess.RunAsync(program, arguments, TimeSpan.FromMinutes(2), environment: variables);
    }

    public void Dispose() => Directory.Delete(Folder, recursive: true);
}
