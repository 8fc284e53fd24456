namespace PlatformBenchmarks.Hosting;

/// <summary>
/// A configuration value the server cannot run with. Thrown while the host is built; <see cref="Program.Main"/> prints
/// the message and exits with <see cref="Program.SettingsExitCode"/> instead of a crash with a stack trace.
/// </summary>
internal sealed class SettingsException : InvalidOperationException
{
    public SettingsException()
    {
    }

    public SettingsException(string message)
        : base(message)
    {
    }

    public SettingsException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
