using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace PlatformBenchmarks.Tests.Support;

/// <summary>
/// A request as it went over the wire: its head as sent, how its body was framed, the body's length and its first bytes.
/// Equal requests are equal records, so a proxy counts them instead of keeping each.
/// </summary>
internal sealed record WireRequest(string Head, bool Chunked, long BodyLength, string BodyStart)
{
    public string Method => Head[..Head.IndexOf(' ', StringComparison.Ordinal)];

    public string Target => Head.Split(' ', 3)[1];

    public bool Closes => string.Equals(Field("Connection"), "close", StringComparison.OrdinalIgnoreCase);

    /// <summary>The value of the field <paramref name="name"/> (any case), or null.</summary>
    public string? Field(string name) =>
        Head.Split("\r\n").Skip(1).Select(line => line.Split(':', 2))
            .Where(parts => parts.Length == 2 && string.Equals(parts[0], name, StringComparison.OrdinalIgnoreCase))
            .Select(parts => parts[1].Trim()).LastOrDefault();
}

/// <summary>
/// A TCP proxy on a loopback port in front of a server: it relays each client connection to a connection of its own to the
/// server, and reads the requests in what the client sends as the bytes go through (heads kept, bodies counted), so a test
/// sees what a load generator put on the wire while the server still answers every request. When one side closes its
/// sending half, the proxy closes the same half towards the other; an error on either side closes both.
/// </summary>
internal sealed class RecordingProxy : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly int _serverPort;
    private readonly ConcurrentDictionary<WireRequest, long> _seen = new();
    private readonly ConcurrentQueue<string> _problems = new();
    private readonly ConcurrentDictionary<Task, Socket[]> _relays = new();
    private readonly Task _accepting;
    private int _connections;

    public RecordingProxy(int serverPort)
    {
        _serverPort = serverPort;
        _listener.Start(backlog: 4096);
        _accepting = AcceptAsync();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Client connections accepted so far.</summary>
    public int Connections => Volatile.Read(ref _connections);

    /// <summary>Every distinct request seen, with how many times it was sent.</summary>
    public IReadOnlyDictionary<WireRequest, long> Requests => new Dictionary<WireRequest, long>(_seen);

    /// <summary>Bytes that were not HTTP/1.1 requests, one line per connection where it happened.</summary>
    public IReadOnlyList<string> Problems => [.. _problems];

    private async Task AcceptAsync()
    {
        while (true)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptSocketAsync();
            }
            catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
            {
                return;
            }

            Interlocked.Increment(ref _connections);
            var server = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            client.NoDelay = true;
            Task relay = RelayAsync(client, server);
            _relays[relay] = [client, server];
            _ = relay.ContinueWith(done => _relays.TryRemove(done, out _), TaskScheduler.Default);
        }
    }

    private async Task RelayAsync(Socket client, Socket server)
    {
        try
        {
            await server.ConnectAsync(IPAddress.Loopback, _serverPort);
            var tap = new RequestTap(request => _seen.AddOrUpdate(request, 1, (_, count) => count + 1));
            await Task.WhenAll(PumpAsync(client, server, tap), PumpAsync(server, client, tap: null));
        }
        catch (InvalidDataException problem)
        {
            _problems.Enqueue(problem.Message);
        }
        catch (SocketException)
        {
            // The server refused or reset the connection: the client sees its side closed, as it would without the proxy.
        }
        finally
        {
            client.Dispose();
            server.Dispose();
        }
    }

    /// <summary>Copies <paramref name="from"/> to <paramref name="to"/> until <paramref name="from"/> stops sending.</summary>
    private static async Task PumpAsync(Socket from, Socket to, RequestTap? tap)
    {
        byte[] buffer = new byte[64 * 1024];
        try
        {
            int read;
            while ((read = await from.ReceiveAsync(buffer, SocketFlags.None)) > 0)
            {
                tap?.Feed(buffer.AsSpan(0, read));
                for (int sent = 0; sent < read;)
                {
                    sent += await to.SendAsync(buffer.AsMemory(sent, read - sent), SocketFlags.None);
                }
            }

            to.Shutdown(SocketShutdown.Send);
        }
        catch (Exception exception) when (exception is SocketException or ObjectDisposedException or InvalidDataException)
        {
            // Both sides go, so that the pump the other way ends too.
            from.Dispose();
            to.Dispose();
            if (exception is InvalidDataException)
            {
                throw;
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        _listener.Stop();
        await _accepting;
        foreach (Socket socket in _relays.Values.SelectMany(sockets => sockets))
        {
            socket.Dispose();
        }

        await Task.WhenAll(_relays.Keys).WaitAsync(TimeSpan.FromSeconds(10));
    }

    /// <summary>Reads HTTP/1.1 requests from a client's bytes, in whatever pieces they arrive.</summary>
    private sealed class RequestTap(Action<WireRequest> seen)
    {
        private const int MaxHead = 64 * 1024;
        private const int BodyStartLength = 16;
        private readonly List<byte> _line = [];
        private readonly StringBuilder _bodyStart = new();
        private State _state = State.Head;
        private string _head = "";
        private bool _chunked;
        private long _remaining;
        private long _bodyLength;

        private enum State
        {
            Head,
            Body,
            ChunkSize,
            ChunkData,
            ChunkEnd,
            Trailer,
        }

        public void Feed(ReadOnlySpan<byte> data)
        {
            while (!data.IsEmpty)
            {
                if (_state is State.Body or State.ChunkData)
                {
                    int take = (int)Math.Min(_remaining, data.Length);
                    Body(data[..take]);
                    data = data[take..];
                    _remaining -= take;
                    if (_remaining == 0)
                    {
                        if (_state == State.Body)
                        {
                            Complete();
                        }
                        else
                        {
                            _state = State.ChunkEnd;
                        }
                    }

                    continue;
                }

                _line.Add(data[0]);
                data = data[1..];
                if (_line.Count > MaxHead)
                {
                    throw new InvalidDataException($"a head or chunk line past {MaxHead} bytes");
                }

                if (_line.Count >= 2 && _line[^2] == '\r' && _line[^1] == '\n')
                {
                    Line();
                }
            }
        }

        /// <summary>Handles the bytes gathered up to a CRLF: a head's line, a chunk's size or end, a trailer line.</summary>
        private void Line()
        {
            string text = Encoding.Latin1.GetString([.. _line]);
            switch (_state)
            {
                case State.Head:
                    if (!text.EndsWith("\r\n\r\n", StringComparison.Ordinal))
                    {
                        return; // the head goes on
                    }

                    _line.Clear();
                    Head(text[..^4]);
                    return;
                case State.ChunkSize:
                    _line.Clear();
                    if (!long.TryParse(text.Split(';')[0].Trim(), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out _remaining))
                    {
                        throw new InvalidDataException($"a chunk size that is not hexadecimal: '{text.Trim()}'");
                    }

                    _state = _remaining == 0 ? State.Trailer : State.ChunkData;
                    return;
                case State.ChunkEnd:
                    _line.Clear();
                    _state = text == "\r\n" ? State.ChunkSize : throw new InvalidDataException("chunk data not followed by CRLF");
                    return;
                default: // State.Trailer
                    _line.Clear();
                    if (text == "\r\n")
                    {
                        Complete();
                    }

                    return;
            }
        }

        private void Head(string head)
        {
            string requestLine = head.Split("\r\n")[0];
            if (requestLine.Split(' ').Length != 3 || !requestLine.EndsWith(" HTTP/1.1", StringComparison.Ordinal))
            {
                throw new InvalidDataException($"not an HTTP/1.1 request line: '{requestLine}'");
            }

            _head = head;
            var request = new WireRequest(head, false, 0, "");
            _chunked = request.Field("Transfer-Encoding")?.Contains("chunked", StringComparison.OrdinalIgnoreCase) == true;
            _bodyLength = 0;
            _bodyStart.Clear();
            if (_chunked)
            {
                _state = State.ChunkSize;
                return;
            }

            _remaining = long.TryParse(request.Field("Content-Length"), NumberStyles.None, CultureInfo.InvariantCulture, out long length) ? length : 0;
            _state = State.Body;
            if (_remaining == 0)
            {
                Complete();
            }
        }

        private void Body(ReadOnlySpan<byte> bytes)
        {
            _bodyLength += bytes.Length;
            int keep = Math.Min(BodyStartLength - _bodyStart.Length, bytes.Length);
            if (keep > 0)
            {
                _bodyStart.Append(Encoding.Latin1.GetString(bytes[..keep]));
            }
        }

        private void Complete()
        {
            seen(new WireRequest(_head, _chunked, _bodyLength, _bodyStart.ToString()));
            _state = State.Head;
        }
    }
}
