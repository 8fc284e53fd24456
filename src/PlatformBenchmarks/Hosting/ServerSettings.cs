using Microsoft.Extensions.Options;
using PlatformBenchmarks.Data;
using PlatformBenchmarks.Endpoints.HttpArena;
using PlatformBenchmarks.Http;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// Every setting the server reads, through the options pattern: each section bound to its options type, checked by its
/// validator, and validated when the host is built (<see cref="BuildValidated"/>) and again on start. A value that
/// cannot be bound (not a number, not a duration) or that its validator refuses becomes a <see cref="SettingsException"/>
/// naming the key, which <c>Main</c> prints as one line before exiting with code 2. Before any of that, the other
/// parts check what the binder would ignore or misread: the command line's shape (ServerSettings.Arguments.cs), keys
/// the server does not read (ServerSettings.Keys.cs), and the listen addresses (ServerSettings.Urls.cs).
/// </summary>
internal static partial class ServerSettings
{
    public static IServiceCollection AddServerSettings(this IServiceCollection services, IConfiguration configuration)
    {
        services.AddOptions<HttpLimits>().Configure(options => Bind(configuration.GetSection("Http"), section => section.Bind(options))).ValidateOnStart();
        services.AddSingleton<IValidateOptions<HttpLimits>, HttpLimitsValidator>();

        services.AddOptions<LinuxTransportOptions>().Configure(options => Bind(configuration.GetSection("Transport"), section => section.Bind(options))).ValidateOnStart();
        services.AddSingleton<IValidateOptions<LinuxTransportOptions>, LinuxTransportOptionsValidator>();
        services.AddOptions<KestrelSocketSettings>().Configure(options => Bind(configuration.GetSection("Sockets"), section => section.Bind(options))).ValidateOnStart();
        services.AddSingleton<IValidateOptions<KestrelSocketSettings>, KestrelSocketSettingsValidator>();

        services.AddOptions<DatabaseOptions>()
            .Configure(options =>
            {
                Bind(configuration.GetSection("Database"), section => section.Bind(options));
                // The root key, as TFB entries and their dockerfiles name it; an empty value means TFB's database.
                if (configuration["ConnectionString"] is { } connectionString && !string.IsNullOrWhiteSpace(connectionString))
                {
                    options.ConnectionString = connectionString;
                    options.ConnectionStringGiven = true;
                }

                // HttpArena's names for the database and the connections it takes (its add-framework docs); empty means unset.
                options.Url = configuration["DATABASE_URL"] is { Length: > 0 } url ? url : null;
                options.MaxConnections = configuration["DATABASE_MAX_CONN"] is { Length: > 0 } maxConnections ? maxConnections : null;
            })
            .ValidateOnStart();
        services.AddSingleton<IValidateOptions<DatabaseOptions>, DatabaseOptionsValidator>();

        services.AddOptions<TlsOptions>()
            .Configure(options =>
            {
                Bind(configuration.GetSection("Tls"), section => section.Bind(options));
                // HttpArena's names for the certificate's files (it mounts /certs/server.crt and /certs/server.key); the
                // Tls section's keys win when given.
                if (string.IsNullOrEmpty(options.CertificatePath) && string.IsNullOrEmpty(options.KeyPath))
                {
                    options.CertificatePath = configuration["TLS_CERT"] is { Length: > 0 } certificate ? certificate : null;
                    options.KeyPath = configuration["TLS_KEY"] is { Length: > 0 } key ? key : null;
                }
            })
            .ValidateOnStart();
        services.AddSingleton<IValidateOptions<TlsOptions>, TlsOptionsValidator>();

        services.AddOptions<HttpArenaOptions>().Configure(options => Bind(configuration.GetSection("HttpArena"), section => section.Bind(options))).ValidateOnStart();
        services.AddSingleton<IValidateOptions<HttpArenaOptions>, HttpArenaOptionsValidator>();
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
    /// Binds <paramref name="section"/> (through <paramref name="bind"/>, written at each call site so the binding source
    /// generator sees the concrete type), after refusing a value outside a key's <see cref="Setting.Choices"/>.
    /// </summary>
    private static void Bind(IConfigurationSection section, Action<IConfigurationSection> bind)
    {
        RequireChoices(section);
        try
        {
            bind(section);
        }
        catch (InvalidOperationException exception)
        {
            // The binder's own message names the key and the value: "Failed to convert configuration value 'abc' at
            // 'Http:LingerTimeout' to type 'System.TimeSpan'."
            throw new SettingsException(exception.Message, exception);
        }
    }

    /// <summary>
    /// An enum key takes only its names. The binder would say no more than "Failed to convert" for a wrong one, and would
    /// take a number or a comma-separated list of names (Enum.Parse reads "IoUring,Epoll" as their bitwise or: Sockets).
    /// </summary>
    private static void RequireChoices(IConfigurationSection section)
    {
        foreach (IConfigurationSection key in section.GetChildren())
        {
            if (SettingsCatalog.Find(key.Path) is { Choices: { } choices } && key.Value is { } value
                && !choices.Contains(value, StringComparer.OrdinalIgnoreCase))
            {
                throw new SettingsException($"Configuration '{key.Path}' must be one of {string.Join(", ", choices)}, not '{value}'.");
            }
        }
    }
}
