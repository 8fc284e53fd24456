using System.Diagnostics.CodeAnalysis;
using Npgsql;

namespace PlatformBenchmarks.Data;

/// <summary>
/// A PostgreSQL URL, the form HttpArena hands its entries in <c>DATABASE_URL</c>
/// (<c>postgres://user:password@host:port/database</c>; libpq's connection URI, also <c>postgresql://</c>), turned into
/// Npgsql settings. User, password and database are percent-decoded; the port defaults to 5432; an IPv6 host is
/// bracketed. Of libpq's query parameters, <c>sslmode</c>, <c>connect_timeout</c> and <c>application_name</c> are read;
/// any other is refused rather than silently dropped.
/// </summary>
internal static class HttpArenaDatabaseUrl
{
    public const int DefaultPort = 5432;

    public static bool TryParse(string url, [NotNullWhen(true)] out NpgsqlConnectionStringBuilder? settings, [NotNullWhen(false)] out string? error)
    {
        ArgumentNullException.ThrowIfNull(url);
        settings = null;
        if (!url.StartsWith("postgres://", StringComparison.OrdinalIgnoreCase) && !url.StartsWith("postgresql://", StringComparison.OrdinalIgnoreCase))
        {
            error = "it must start with postgres:// or postgresql://";
            return false;
        }

        if (!Uri.TryCreate(url, UriKind.Absolute, out Uri? uri) || uri.Fragment.Length > 0)
        {
            error = "it is not a well-formed URL";
            return false;
        }

        if (uri.IdnHost.Length == 0)
        {
            error = "it names no host";
            return false;
        }

        string database = Uri.UnescapeDataString(uri.AbsolutePath.TrimStart('/'));
        if (database.Length == 0 || database.Contains('/', StringComparison.Ordinal))
        {
            error = "its path must be the database name: /database";
            return false;
        }

        settings = new NpgsqlConnectionStringBuilder
        {
            Host = uri.HostNameType == UriHostNameType.IPv6 ? uri.IdnHost.Trim('[', ']') : uri.IdnHost,
            Port = uri.IsDefaultPort || uri.Port < 0 ? DefaultPort : uri.Port,
            Database = database,
        };

        if (uri.UserInfo.Length > 0)
        {
            int colon = uri.UserInfo.IndexOf(':', StringComparison.Ordinal);
            settings.Username = Uri.UnescapeDataString(colon < 0 ? uri.UserInfo : uri.UserInfo[..colon]);
            if (colon >= 0)
            {
                settings.Password = Uri.UnescapeDataString(uri.UserInfo[(colon + 1)..]);
            }
        }

        error = ReadParameters(uri.Query, settings);
        if (error is not null)
        {
            settings = null;
            return false;
        }

        return true;
    }

    /// <summary>Applies the query's parameters; the reason when one is unknown or has a bad value.</summary>
    private static string? ReadParameters(string query, NpgsqlConnectionStringBuilder settings)
    {
        foreach (string pair in query.TrimStart('?').Split('&', StringSplitOptions.RemoveEmptyEntries))
        {
            int equals = pair.IndexOf('=', StringComparison.Ordinal);
            string name = Uri.UnescapeDataString(equals < 0 ? pair : pair[..equals]);
            string value = equals < 0 ? string.Empty : Uri.UnescapeDataString(pair[(equals + 1)..]);
            switch (name)
            {
                case "sslmode" when Enum.TryParse(value.Replace("-", string.Empty, StringComparison.Ordinal), ignoreCase: true, out SslMode mode) && !int.TryParse(value, out _):
                    settings.SslMode = mode;
                    break;
                case "connect_timeout" when int.TryParse(value, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int seconds):
                    settings.Timeout = seconds;
                    break;
                case "application_name":
                    settings.ApplicationName = value;
                    break;
                case "sslmode" or "connect_timeout":
                    return $"its parameter {name} has a value it cannot take: '{value}'";
                default:
                    return $"its parameter '{name}' is not one this server reads (sslmode, connect_timeout, application_name)";
            }
        }

        return null;
    }
}
