using System.Buffers.Text;
using System.Text;
using System.Diagnostics.CodeAnalysis;
using System.Security.Cryptography;

namespace PlatformBenchmarks.Http.WebSockets;

/// <summary>What a request asking for a WebSocket gets, before any of it switches (RFC 6455 §4.2.1, §4.2.2).</summary>
internal enum HandshakeOutcome : byte
{
    /// <summary>A valid opening handshake: 101, and the connection speaks WebSocket.</summary>
    Accept,

    /// <summary>A handshake with no version or another than 13: 426 with the version this server speaks (§4.4).</summary>
    UpgradeRequired,

    /// <summary>Not a WebSocket handshake, or a malformed one: 400 and no upgrade.</summary>
    BadRequest,
}

/// <summary>
/// The server's side of the opening handshake, RFC 6455 §4.2: checks the request's fields and computes
/// Sec-WebSocket-Accept. It runs only when a handler asks to accept, so requests that never upgrade pay nothing for it.
/// No subprotocol and no extension is chosen: without a Sec-WebSocket-Extensions answer, permessage-deflate is off (§9.1).
/// </summary>
internal static class WebSocketHandshake
{
    /// <summary>The length of Sec-WebSocket-Accept's value: a SHA-1 digest in base64.</summary>
    public const int AcceptLength = 28;

    // RFC 6455 §1.3: the GUID appended to the client's key.
    private static ReadOnlySpan<byte> KeyGuid => "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"u8;

    /// <summary>The field a 426 carries (RFC 6455 §4.4).</summary>
    public static ResponseFields VersionField { get; } = new(("Sec-WebSocket-Version", "13"));

    /// <summary>
    /// Checks <paramref name="request"/> as RFC 6455 §4.2.1 asks: a GET of HTTP/1.1, no body, Upgrade naming websocket,
    /// Connection naming Upgrade, one Sec-WebSocket-Key of 16 bytes in base64, and Sec-WebSocket-Version 13. On
    /// <see cref="HandshakeOutcome.Accept"/>, <paramref name="accept"/> holds Sec-WebSocket-Accept's value; otherwise
    /// <paramref name="reason"/> says what was wrong.
    /// </summary>
    public static HandshakeOutcome Check(HttpRequest request, Span<byte> accept, out ReadOnlySpan<byte> reason)
    {
        // One walk of the fields gathers every fact; they are judged after it in the order the reasons are given.
        bool upgradeField = false;
        bool upgradeWebSocket = false;
        bool connectionUpgrade = false;
        int keys = 0;
        int versions = 0;
        bool version13 = false;
        ReadOnlySpan<byte> key = default;
        foreach (HttpRequest.Field field in request.Fields)
        {
            ReadOnlySpan<byte> name = field.Name;
            if (Ascii.EqualsIgnoreCase(name, "upgrade"u8))
            {
                upgradeField = true;
                upgradeWebSocket |= ListContains(field.Value, "websocket"u8);
            }
            else if (Ascii.EqualsIgnoreCase(name, "connection"u8))
            {
                connectionUpgrade |= ListContains(field.Value, "upgrade"u8);
            }
            else if (Ascii.EqualsIgnoreCase(name, "sec-websocket-key"u8))
            {
                keys++;
                key = field.Value;
            }
            else if (Ascii.EqualsIgnoreCase(name, "sec-websocket-version"u8))
            {
                versions++;
                version13 = field.Value.SequenceEqual("13"u8);
            }
        }

        if (!upgradeField)
        {
            reason = "Not a WebSocket handshake: no Upgrade field.\n"u8;
            return HandshakeOutcome.BadRequest;
        }

        if (request.Method != HttpMethod.Get || request.Version != HttpVersion.Http11 || request.HasBody)
        {
            reason = "A WebSocket handshake is a GET of HTTP/1.1 without a body.\n"u8;
            return HandshakeOutcome.BadRequest;
        }

        if (!upgradeWebSocket || !connectionUpgrade)
        {
            reason = "A WebSocket handshake needs 'Upgrade: websocket' and 'Connection: Upgrade'.\n"u8;
            return HandshakeOutcome.BadRequest;
        }

        if (versions != 1 || !version13)
        {
            reason = "This server speaks WebSocket version 13.\n"u8;
            return HandshakeOutcome.UpgradeRequired;
        }

        if (keys != 1 || !IsValidKey(key))
        {
            reason = "Sec-WebSocket-Key must be 16 bytes in base64, once.\n"u8;
            return HandshakeOutcome.BadRequest;
        }

        ComputeAccept(key, accept);
        reason = default;
        return HandshakeOutcome.Accept;
    }

    /// <summary>Sec-WebSocket-Accept: base64 of the SHA-1 of the key and the GUID (RFC 6455 §4.2.2, step 5.4).</summary>
    [SuppressMessage("Security", "CA5350", Justification = "RFC 6455 §4.2.2 defines the accept value with SHA-1; it proves the server read the handshake, it protects nothing.")]
    public static void ComputeAccept(ReadOnlySpan<byte> key, Span<byte> accept)
    {
        Span<byte> input = stackalloc byte[24 + 36];
        key.CopyTo(input);
        KeyGuid.CopyTo(input.Slice(key.Length));
        Span<byte> digest = stackalloc byte[SHA1.HashSizeInBytes];
        SHA1.HashData(input.Slice(0, key.Length + KeyGuid.Length), digest);
        Base64.EncodeToUtf8(digest, accept, out _, out _);
    }

    /// <summary>A base64 value that decodes to 16 bytes (§4.1): 24 characters, the last two '='.</summary>
    private static bool IsValidKey(ReadOnlySpan<byte> key)
    {
        Span<byte> decoded = stackalloc byte[18];
        return key.Length == 24
            && Base64.DecodeFromUtf8(key, decoded, out int consumed, out int written) == System.Buffers.OperationStatus.Done
            && consumed == 24
            && written == 16;
    }

    /// <summary>Whether a comma-separated list of tokens holds <paramref name="token"/>, in any letter case (RFC 9110 §5.6.1).</summary>
    private static bool ListContains(ReadOnlySpan<byte> list, ReadOnlySpan<byte> token)
    {
        foreach (Range range in list.Split((byte)','))
        {
            if (Ascii.EqualsIgnoreCase(list[range].Trim(" \t"u8), token))
            {
                return true;
            }
        }

        return false;
    }
}
