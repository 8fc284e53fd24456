using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The settings of HttpArena's routes, bound from the <c>HttpArena</c> section and checked at start-up by
/// <see cref="HttpArenaOptionsValidator"/>. The defaults are where the venue mounts its files in the container (HttpArena's
/// add-framework/directory-structure.md).
/// </summary>
internal sealed class HttpArenaOptions
{
    /// <summary>Where the venue mounts its static files.</summary>
    public const string DefaultStaticPath = "/data/static";

    /// <summary>Where the venue mounts its dataset in the container.</summary>
    public const string DefaultDatasetPath = "/data/dataset.json";

    /// <summary>
    /// 256 MiB: the venue's largest upload is 20 MiB. Only time is at stake, not memory (the body is streamed through
    /// one buffer), and a client sending at <c>Http:MinRequestBodyDataRate</c> or faster has all the time it needs.
    /// </summary>
    public const long DefaultMaxUploadSize = 256L * 1024 * 1024;

    /// <summary>The dataset <c>/json/{count}</c> serves, read once at start-up.</summary>
    public string DatasetPath { get; set; } = DefaultDatasetPath;

    /// <summary>The largest body <c>POST /upload</c> takes (413 beyond), in place of <c>Http:MaxRequestBodySize</c>.</summary>
    public long MaxUploadSize { get; set; } = DefaultMaxUploadSize;

    /// <summary>The directory <c>GET /static/{file}</c> serves. It may be missing: every file is then a 404.</summary>
    public string StaticPath { get; set; } = DefaultStaticPath;

    /// <summary>The library that writes gzip bodies: libdeflate when the system has it, unless told otherwise.</summary>
    public GzipLibrary Gzip { get; set; } = GzipLibrary.Auto;
}

/// <summary>Refuses settings the routes cannot work with, naming the key.</summary>
internal sealed class HttpArenaOptionsValidator : IValidateOptions<HttpArenaOptions>
{
    public ValidateOptionsResult Validate(string? name, HttpArenaOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        if (string.IsNullOrWhiteSpace(options.DatasetPath))
        {
            failures.Add("Configuration 'HttpArena:DatasetPath' must name a file.");
        }

        if (options.MaxUploadSize < 0)
        {
            failures.Add($"Configuration 'HttpArena:MaxUploadSize' must be in 0..{long.MaxValue}, not {options.MaxUploadSize}.");
        }

        // An absolute path only: a relative one would depend on the directory the server was started from.
        if (string.IsNullOrWhiteSpace(options.StaticPath) || options.StaticPath.Contains('\0', StringComparison.Ordinal) || !Path.IsPathFullyQualified(options.StaticPath))
        {
            failures.Add($"Configuration 'HttpArena:StaticPath' must be an absolute directory path, not '{options.StaticPath}'.");
        }

        if (options.Gzip == GzipLibrary.LibDeflate && !LibDeflate.IsAvailable)
        {
            failures.Add($"Configuration 'HttpArena:Gzip' is LibDeflate, but {LibDeflate.LoadFailure}; Auto falls back to System.IO.Compression.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
