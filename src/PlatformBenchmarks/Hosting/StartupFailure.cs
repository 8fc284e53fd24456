using System.Net.Sockets;

namespace PlatformBenchmarks.Hosting;

/// <summary>
/// Failures of the host's start that are the environment's, not the server's: a port already in use, a port the
/// process may not bind, an address that does not parse. They get one line naming the address and the reason, and the
/// settings exit code, instead of an unhandled exception.
/// </summary>
internal static class StartupFailure
{
    /// <summary>Starts the host; returns null when it runs, or the line that says why it could not.</summary>
    /// <param name="addresses">The listen addresses as configured (<c>urls</c>), for the line.</param>
    public static async Task<string?> TryStartAsync(WebApplication app, string addresses)
    {
        try
        {
            await app.StartAsync();
            return null;
        }
        catch (Exception exception) when (Describe(exception, addresses) is { } description)
        {
            return description;
        }
    }

    /// <summary>The one line for a start-up failure of the environment's making; null for anything else (a bug: let it crash loudly).</summary>
    internal static string? Describe(Exception exception, string addresses)
    {
        for (Exception? current = exception; current is not null; current = current.InnerException)
        {
            switch (current)
            {
                case SocketException { SocketErrorCode: SocketError.AccessDenied }:
                    return $"cannot listen on {addresses}: permission denied (ports below 1024 need privileges)";
                case SocketException socket:
                    return $"cannot listen on {addresses}: {socket.SocketErrorCode} ({socket.Message})";
                case FormatException or UriFormatException:
                    return $"cannot listen on {addresses}: {current.Message}";
                case IOException io when io.Message.StartsWith("Failed to bind", StringComparison.Ordinal):
                    // Kestrel's own words name the address and the reason ("... address already in use.").
                    return io.Message;
                case Microsoft.AspNetCore.Connections.AddressInUseException:
                    return $"cannot listen on {addresses}: the address is already in use";
                default:
                    break;
            }
        }

        return null;
    }
}
