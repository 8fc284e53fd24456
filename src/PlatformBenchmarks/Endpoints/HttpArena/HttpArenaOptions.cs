using Microsoft.Extensions.Options;

namespace PlatformBenchmarks.Endpoints.HttpArena;

/// <summary>
/// The <c>HttpArena</c> section: where the HttpArena routes find the files the venue mounts into its containers
/// (HttpArena's add-framework/directory-structure.md). Bound at start-up and checked by <see cref="HttpArenaOptionsValidator"/>.
/// </summary>
internal sealed class HttpArenaOptions
{
    /// <summary>Where the venue mounts its static files.</summary>
    public const string DefaultStaticPath = "/data/static";

    /// <summary>The directory <c>GET /static/{file}</c> serves. It may be missing: every file is then a 404.</summary>
    public string StaticPath { get; set; } = DefaultStaticPath;
}

/// <summary>Refuses HttpArena settings the server cannot run with, naming the key.</summary>
internal sealed class HttpArenaOptionsValidator : IValidateOptions<HttpArenaOptions>
{
    public ValidateOptionsResult Validate(string? name, HttpArenaOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        // An absolute path only: a relative one would depend on the directory the server was started from.
        return string.IsNullOrWhiteSpace(options.StaticPath) || options.StaticPath.Contains('\0', StringComparison.Ordinal) || !Path.IsPathFullyQualified(options.StaticPath)
            ? ValidateOptionsResult.Fail($"Configuration 'HttpArena:StaticPath' must be an absolute directory path, not '{options.StaticPath}'.")
            : ValidateOptionsResult.Success;
    }
}
