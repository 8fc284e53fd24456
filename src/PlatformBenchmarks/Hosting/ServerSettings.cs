using Microsoft.Extensions.Options;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// Every setting the server reads, through the options pattern: each section bound to its options type, checked by its
/// validator, and validated when the host is built (<see cref="BuildValidated"/>) and again on start. A value that
/// cannot be bound (not a number, not a duration) or that its validator refuses becomes a <see cref="SettingsException"/>
/// naming the key, which <c>Main</c> prints as one line before exiting with code 2.
/// </summary>
internal static class ServerSettings
{
    public static IServiceCollection AddServerSettings(this IServiceCollection services, IConfiguration configuration)
    {
        services.AddOptions<HttpLimits>().Configure(options => Guard(() => configuration.GetSection("Http").Bind(options))).ValidateOnStart();
        services.AddSingleton<IValidateOptions<HttpLimits>, HttpLimitsValidator>();

        services.AddOptions<TransportSettings>().Configure(options => Guard(() => configuration.GetSection("Transport").Bind(options))).ValidateOnStart();
        services.AddSingleton<IValidateOptions<TransportSettings>, TransportSettingsValidator>();
        services.AddOptions<TransportOptions>().Configure(options => Guard(() => configuration.GetSection("Transport").Bind(options))).ValidateOnStart();
        services.AddSingleton<IValidateOptions<TransportOptions>, TransportOptionsValidator>();

        services.AddOptions<DatabaseOptions>()
            .Configure(options =>
            {
                Guard(() => configuration.GetSection("Database").Bind(options));
                // The root key, as TFB entries and their dockerfiles name it; an empty value means TFB's database.
                if (configuration["ConnectionString"] is { } connectionString && !string.IsNullOrWhiteSpace(connectionString))
                {
                    options.ConnectionString = connectionString;
                }
            })
            .ValidateOnStart();
        services.AddSingleton<IValidateOptions<DatabaseOptions>, DatabaseOptionsValidator>();
        return services;
    }

    /// <summary>
    /// Builds the host and binds and validates every section now, so a bad value stops the server before it opens a
    /// socket. (Building already resolves some options: Kestrel's configuration reads the engine's limits.) Throws
    /// <see cref="SettingsException"/> with every failure on one line.
    /// </summary>
    public static WebApplication BuildValidated(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        WebApplication app = Translated(builder.Build);
        ValidateOrThrow(app.Services);
        return app;
    }

    /// <summary>Binds and validates every section registered in <paramref name="services"/>; throws <see cref="SettingsException"/>.</summary>
    internal static void ValidateOrThrow(IServiceProvider services)
        => Translated(() =>
        {
            services.GetRequiredService<IStartupValidator>().Validate();
            return services;
        });

    private static T Translated<T>(Func<T> action)
    {
        try
        {
            return action();
        }
        catch (OptionsValidationException exception)
        {
            throw new SettingsException(string.Join(" ", exception.Failures), exception);
        }
        catch (AggregateException exception) when (exception.InnerExceptions.All(inner => inner is OptionsValidationException))
        {
            throw new SettingsException(
                string.Join(" ", exception.InnerExceptions.Cast<OptionsValidationException>().SelectMany(inner => inner.Failures)),
                exception);
        }
    }

    /// <summary>
    /// The listen addresses (<c>urls</c>, <c>;</c>-separated), checked before Kestrel sees them: it reads an address whose
    /// port does not parse (<c>http://host:abc</c>) as a host name on port 80 and starts there, silently.
    /// </summary>
    public static string CheckUrls(string urls)
    {
        foreach (string url in urls.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (!url.StartsWith("http://", StringComparison.OrdinalIgnoreCase))
            {
                throw new SettingsException($"Configuration 'urls': '{url}' is not an http:// address (this server speaks plain HTTP/1.1).");
            }

            string authority = url["http://".Length..];
            int slash = authority.IndexOf('/', StringComparison.Ordinal);
            authority = slash >= 0 ? authority[..slash] : authority;
            int colon = authority.LastIndexOf(':');
            bool bracketed = authority.StartsWith('[');
            if (colon < 0 || (bracketed && colon < authority.IndexOf(']', StringComparison.Ordinal)))
            {
                // No port: Kestrel's default, 80.
                colon = authority.Length;
            }
            else if (!int.TryParse(authority.AsSpan(colon + 1), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int port) || port > 65535)
            {
                throw new SettingsException($"Configuration 'urls': '{url}' has no valid port (0..65535).");
            }

            string host = authority[..colon];
            if (host.Length == 0 || (bracketed && !(host.EndsWith(']') && System.Net.IPAddress.TryParse(host.AsSpan(1, host.Length - 2), out _))))
            {
                throw new SettingsException($"Configuration 'urls': '{url}' has no valid host.");
            }
        }

        return urls;
    }

    /// <summary>Runs a bind (written at each call site, so the binding source generator sees the concrete type).</summary>
    private static void Guard(Action bind)
    {
        try
        {
            bind();
        }
        catch (InvalidOperationException exception)
        {
            // The binder's own message names the key and the value: "Failed to convert configuration value 'abc' at
            // 'Http:LingerTimeout' to type 'System.TimeSpan'."
            throw new SettingsException(exception.Message, exception);
        }
    }
}
