using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace PlatformBenchmarks.Hosting;

internal static partial class ServerSettings
{
    private const string HttpScheme = "http://";
    private const string HttpsScheme = "https://";
    private const string H2cScheme = "h2c://";

    /// <summary>
    /// The listen addresses (<c>urls</c>, <c>;</c>-separated), checked before Kestrel sees them. Kestrel reads an
    /// address whose port does not parse (<c>http://host:abc</c>) as a host name on port 80, and it listens on every
    /// interface for any host that is neither <c>localhost</c> nor an IP literal (<c>http://256.1.1.1:8097</c> becomes
    /// <c>[::]:8097</c>): both would start, silently, somewhere other than asked.
    /// </summary>
    public static string CheckUrls(string urls)
    {
        _ = ParseUrls(urls);
        return urls;
    }

    /// <summary>The listen addresses of <c>urls</c>, checked as <see cref="CheckUrls"/> does, each with whether it speaks TLS.</summary>
    public static IReadOnlyList<ListenAddress> ParseUrls(string urls)
    {
        string[] addresses = urls.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (addresses.Length == 0)
        {
            throw new SettingsException("Configuration 'urls' names no address.");
        }

        return [.. addresses.Select(ParseUrl)];
    }

    private static ListenAddress ParseUrl(string url)
    {
        bool tls = url.StartsWith(HttpsScheme, StringComparison.OrdinalIgnoreCase);
        // h2c:// is not a URI scheme but this server's name for a cleartext listener that speaks only HTTP/2 with prior
        // knowledge (RFC 9113 §3.3); its clients address it with http://.
        bool h2c = !tls && url.StartsWith(H2cScheme, StringComparison.OrdinalIgnoreCase);
        if (!tls && !h2c && !url.StartsWith(HttpScheme, StringComparison.OrdinalIgnoreCase))
        {
            throw new SettingsException($"Configuration 'urls': '{url}' is not an http://, https:// or h2c:// address (this server speaks HTTP/1.1, over TLS for https://, and HTTP/2 with prior knowledge for h2c://).");
        }

        string authority = url[(tls ? HttpsScheme : h2c ? H2cScheme : HttpScheme).Length..];
        int slash = authority.IndexOf('/', StringComparison.Ordinal);
        if (slash >= 0)
        {
            // Kestrel refuses a path base only when it starts, with a stack trace.
            if (slash != authority.Length - 1)
            {
                throw new SettingsException($"Configuration 'urls': '{url}' has a path (the server answers from the root).");
            }

            authority = authority[..slash];
        }

        int colon = authority.LastIndexOf(':');
        bool bracketed = authority.StartsWith('[');
        // No port: the scheme's, 80 or 443 (RFC 9110 §4.2).
        int port = tls ? 443 : 80;
        if (colon < 0 || (bracketed && colon < authority.IndexOf(']', StringComparison.Ordinal)))
        {
            colon = authority.Length;
        }
        else if (!int.TryParse(authority.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out port) || port > 65535)
        {
            throw new SettingsException($"Configuration 'urls': '{url}' has no valid port (0..65535).");
        }

        string host = authority[..colon];
        if (!IsListenHost(host))
        {
            throw new SettingsException($"Configuration 'urls': '{url}' has no valid host (*, +, localhost, or an IP address such as 127.0.0.1 or [::1]).");
        }

        return new ListenAddress(url, tls, host, port) { H2c = h2c };
    }

    /// <summary>
    /// A host Kestrel listens on as written: <c>*</c> and <c>+</c> (every interface), <c>localhost</c> (loopback), an
    /// IPv6 literal in brackets, or an IPv4 literal. A host name is refused, because Kestrel would listen on every
    /// interface for it.
    /// </summary>
    private static bool IsListenHost(string host)
        => host is "*" or "+"
            || host.Equals("localhost", StringComparison.OrdinalIgnoreCase)
            || (host.Length > 2 && host[0] == '[' && host[^1] == ']'
                && IPAddress.TryParse(host.AsSpan(1, host.Length - 2), out IPAddress? address) && address.AddressFamily == AddressFamily.InterNetworkV6)
            || IsDottedQuad(host);

    /// <summary>
    /// RFC 3986 §3.2.2's IPv4address: four decimal octets, 0..255, without leading zeros. IPAddress.TryParse also takes
    /// <c>127.1</c>, <c>0x7f.0.0.1</c> and octal <c>010.0.0.1</c> (8.0.0.1), which a URL would read as a host name.
    /// </summary>
    private static bool IsDottedQuad(string host)
    {
        string[] octets = host.Split('.');
        return octets.Length == 4 && octets.All(octet =>
            octet.Length is >= 1 and <= 3
            && octet.All(char.IsAsciiDigit)
            && (octet.Length == 1 || octet[0] != '0')
            && int.Parse(octet, CultureInfo.InvariantCulture) <= 255);
    }
}

/// <summary>One address of <c>urls</c>: as written, whether it speaks TLS (https://), its host as checked and its port.</summary>
internal sealed record ListenAddress(string Url, bool Tls, string Host, int Port)
{
    /// <summary>Whether it speaks only HTTP/2 with prior knowledge, in cleartext (h2c://).</summary>
    public bool H2c { get; init; }
}

/// <summary>The server's listen addresses: <c>urls</c> as given, and each address checked (<see cref="ServerSettings.ParseUrls"/>).</summary>
internal sealed class ListenAddresses(string urls)
{
    public string Urls { get; } = urls;

    public IReadOnlyList<ListenAddress> All { get; } = ServerSettings.ParseUrls(urls);
}
