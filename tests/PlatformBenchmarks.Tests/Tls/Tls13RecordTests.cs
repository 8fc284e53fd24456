using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using PlatformBenchmarks.Http.Tls;
using PlatformBenchmarks.Tests.Support;
using PlatformBenchmarks.Transport;

namespace PlatformBenchmarks.Tests.Tls;

/// <summary>
/// TLS 1.3's records after the OpenSSL engine's handshake, with an OpenSSL client that does what SslStream cannot: key
/// updates both ways, a resumed session (whose records continue after a different count of the server's tickets), and
/// raw bytes between the records. The same behaviour holds whoever protects the records (<see cref="TlsRecordLayer"/>).
/// </summary>
public abstract class Tls13RecordTests(TlsServerFixture server)
{
    private const string Plaintext = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";

    private static CancellationToken Deadline => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;

    [Theory]
    [InlineData("TLS_AES_128_GCM_SHA256")]
    [InlineData("TLS_AES_256_GCM_SHA384")]
    [InlineData("TLS_CHACHA20_POLY1305_SHA256")]
    public async Task KeyUpdatesEitherWayKeepEverySuiteAnswering(string suite)
    {
        await Task.Run(() =>
        {
            using var client = OpenSslClient.Connect(server.Port, suite);
            client.Write(Plaintext);
            Assert.EndsWith("Hello, World!", client.ReadResponse(), StringComparison.Ordinal);

            // The client's next records come under its next secret; when it asks, the server's answer comes after the
            // server's own KeyUpdate, under its next secret (RFC 8446 §4.6.3). Each step is checked by the next answer.
            foreach (bool requestPeer in (bool[])[true, false, true, true, false])
            {
                client.KeyUpdate(requestPeer);
                client.Write(Plaintext + Plaintext);
                string answers = client.ReadResponse();
                if (answers.Split("Hello, World!").Length < 3)
                {
                    answers += client.ReadResponse();
                }

                Assert.Equal(3, answers.Split("Hello, World!").Length);
            }
        });
    }

    [Fact]
    public async Task AResumedSessionCarriesRequests()
    {
        await Task.Run(() =>
        {
            nint session;
            using (var first = OpenSslClient.Connect(server.Port))
            {
                first.Write(Plaintext);
                Assert.EndsWith("Hello, World!", first.ReadResponse(), StringComparison.Ordinal);
                // Read after the response, so the server's tickets (sent before it) have arrived.
                session = first.TakeSession();
            }

            try
            {
                using var resumed = OpenSslClient.Connect(server.Port, session: session);
                Assert.True(resumed.Resumed);
                for (int i = 0; i < 3; i++)
                {
                    resumed.Write(Plaintext);
                    Assert.EndsWith("Hello, World!", resumed.ReadResponse(), StringComparison.Ordinal);
                }
            }
            finally
            {
                OpenSslClient.FreeSession(session);
            }
        });
    }

    [Theory]
    [InlineData("1703030014" + "0000000000000000000000000000000000000000", "bad record mac")]
    [InlineData("140303000101", "unexpected message")]
    [InlineData("1703034101", "record overflow")]
    public async Task ARefusedRecordGetsItsAlertAndClosesThatConnectionOnly(string record, string alert)
    {
        await using SslStream established = await server.ConnectTlsAsync("http/1.1");

        string failure = await Task.Run(() =>
        {
            using var client = OpenSslClient.Connect(server.Port);
            client.Write(Plaintext);
            Assert.EndsWith("Hello, World!", client.ReadResponse(), StringComparison.Ordinal);
            // A record that does not authenticate, a change_cipher_spec after the handshake (RFC 8446 §5), a length past
            // 2^14 + 256 (§5.2): the server's fatal alert, then the end of the connection.
            client.SendRaw(Convert.FromHexString(record));
            return client.ReadUntilFailure();
        });

        Assert.Contains(alert, failure, StringComparison.Ordinal);
        await established.WriteAsync(Requests.Bytes(Plaintext));
        Assert.Equal(200, (await RawResponse.ReadAsync(established, cancellationToken: Deadline))!.Status);
    }

    /// <summary>
    /// The alert for a KeyUpdate whose body is longer than its one byte: decode_error (RFC 8446 §6.2, a message of the
    /// wrong length). OpenSSL's record layer checks the message's size against its type first, and says illegal_parameter.
    /// </summary>
    protected virtual string OverlongKeyUpdateAlert => "decode error";

    [Theory]
    [InlineData(new byte[] { 24, 0, 0, 1, 2 }, "illegal parameter")]
    [InlineData(new byte[] { 24, 0, 0, 1, 255 }, "illegal parameter")]
    [InlineData(new byte[] { 24, 0, 0, 0 }, "decode error")]
    [InlineData(new byte[] { 24, 0, 0, 2, 0, 0 }, null)]
    public async Task AKeyUpdateOutsideItsFormIsRefused(byte[] message, string? alert)
    {
        string failure = await Task.Run(() =>
        {
            using var client = OpenSslClient.Connect(server.Port);
            client.Write(Plaintext);
            Assert.EndsWith("Hello, World!", client.ReadResponse(), StringComparison.Ordinal);
            // A request_update other than 0 or 1 (RFC 8446 §4.6.3), or a KeyUpdate whose body is not one byte: sealed
            // here under the client's key, as OpenSSL's client sends neither.
            client.SendRaw(client.SealNext(22, message));
            return client.ReadUntilFailure();
        });

        Assert.Contains("alert " + (alert ?? OverlongKeyUpdateAlert), failure, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RecordsArrivingAByteAtATimeFromTheHandshakeOnAreAnsweredInOrder()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(IPAddress.Loopback, server.Port);
        await using var tls = new SslStream(new ByteAtATimeStream(new NetworkStream(socket, ownsSocket: false)));
        await tls.AuthenticateAsClientAsync(server.Certificate.ClientOptions("http/1.1"), Deadline);

        // Every header and record split at each byte: the handshake's records given to OpenSSL in parts, and the
        // loop's records joined across reads, the three requests in order.
        await tls.WriteAsync(Requests.Bytes(Plaintext + Plaintext + Plaintext), Deadline);
        for (int i = 0; i < 3; i++)
        {
            Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.Status);
        }
    }

    [Fact]
    public async Task Tls12StaysWithOpenSslsRecordsAndAnswers()
    {
        SslClientAuthenticationOptions options = server.Certificate.ClientOptions("http/1.1");
        options.EnabledSslProtocols = SslProtocols.Tls12;
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(IPAddress.Loopback, server.Port);
        await using var tls = new SslStream(new NetworkStream(socket, ownsSocket: false));
        await tls.AuthenticateAsClientAsync(options, Deadline);

        for (int i = 0; i < 3; i++)
        {
            await tls.WriteAsync(Requests.Bytes(Plaintext));
            Assert.Equal(200, (await RawResponse.ReadAsync(tls, cancellationToken: Deadline))!.Status);
        }

        Assert.Equal(SslProtocols.Tls12, tls.SslProtocol);
    }
}

/// <summary>A stream that sends what it is given one byte per write, each its own segment on a socket without Nagle.</summary>
internal sealed class ByteAtATimeStream(Stream inner) : PassThroughStream(inner)
{
    public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        for (int i = 0; i < buffer.Length; i++)
        {
            await Inner.WriteAsync(buffer.Slice(i, 1), cancellationToken);
        }
    }
}

public class IoUringLoopRecordTests(IoUringLoopRecordTests.Server server) : Tls13RecordTests(server), IClassFixture<IoUringLoopRecordTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.IoUring, null, "--Tls:RecordLayer", nameof(TlsRecordLayer.Loop));
}

public class SocketsLoopRecordTests(SocketsLoopRecordTests.Server server) : Tls13RecordTests(server), IClassFixture<SocketsLoopRecordTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.Sockets, null, "--Tls:RecordLayer", nameof(TlsRecordLayer.Loop));
}

public class IoUringLoopEvpRecordTests(IoUringLoopEvpRecordTests.Server server) : Tls13RecordTests(server), IClassFixture<IoUringLoopEvpRecordTests.Server>
{
    public sealed class Server() : TlsServerFixture(TransportKind.IoUring, null, "--Tls:RecordLayer", nameof(TlsRecordLayer.LoopEvp));
}

public class IoUringOpenSslRecordTests(IoUringOpenSslRecordTests.Server server) : Tls13RecordTests(server), IClassFixture<IoUringOpenSslRecordTests.Server>
{
    protected override string OverlongKeyUpdateAlert => "illegal parameter";

    public sealed class Server() : TlsServerFixture(TransportKind.IoUring, null, "--Tls:RecordLayer", nameof(TlsRecordLayer.OpenSsl));
}
