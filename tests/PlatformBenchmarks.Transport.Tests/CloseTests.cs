using System.IO.Pipelines;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using PlatformBenchmarks.Transport.Tests.Support;

namespace PlatformBenchmarks.Transport.Tests;

/// <summary>How connections end: half-closes in both directions, resets, aborts.</summary>
public abstract class CloseTests(TransportKind kind)
{
    [Fact]
    public async Task APeerThatHalfClosesStillGetsItsWholeEchoThenTheServersFin()
    {
        await using TestServer server = await TestServer.StartEchoAsync(kind);
        using Socket client = await server.ConnectAsync();
        byte[] payload = SocketExtensions.Pattern(300_000);

        Task<byte[]> echo = client.ReceiveToEndAsync();
        await client.SendAllAsync(payload);
        client.Shutdown(SocketShutdown.Send);

        Assert.Equal(payload, await echo);
    }

    [Fact]
    public async Task TheServersHalfCloseReachesTheClientWhileTheClientCanStillSend()
    {
        // The application answers, completes its output, and goes on reading: the client sees the answer and EOF at
        // once, and what it sends afterwards still reaches the application (no reset).
        var lateBytes = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            PipeReader input = connection.Transport.Input;
            ReadResult first = await input.ReadAsync();
            input.AdvanceTo(first.Buffer.End);
            await connection.Transport.Output.WriteAsync("bye"u8.ToArray());
            await connection.Transport.Output.CompleteAsync();

            long late = 0;
            while (true)
            {
                ReadResult result = await input.ReadAsync();
                late += result.Buffer.Length;
                input.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    break;
                }
            }

            await input.CompleteAsync();
            lateBytes.TrySetResult(late);
        });

        using Socket client = await server.ConnectAsync();
        await client.SendAllAsync("hello"u8.ToArray());
        Assert.Equal("bye"u8.ToArray(), await client.ReceiveToEndAsync());

        await client.SendAllAsync(new byte[10_000]);
        client.Shutdown(SocketShutdown.Send);
        Assert.Equal(10_000, await lateBytes.Task.WaitAsync(SocketExtensions.Patience));
    }

    [Fact]
    public async Task APeerThatResetsMidSendEndsOnlyItsOwnConnection()
    {
        var ended = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        var received = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            try
            {
                while (true)
                {
                    ReadResult result = await connection.Transport.Input.ReadAsync();
                    received.TrySetResult();
                    connection.Transport.Input.AdvanceTo(result.Buffer.End);
                    if (result.IsCompleted)
                    {
                        ended.TrySetResult(null);
                        return;
                    }
                }
            }
            catch (ConnectionResetException ex)
            {
                ended.TrySetResult(ex);
            }
        });

        using (Socket client = await server.ConnectAsync())
        {
            await client.SendAllAsync(new byte[100_000]);
            await received.Task.WaitAsync(SocketExtensions.Patience);
            client.LingerState = new LingerOption(true, 0);
            client.Close();
        }

        // The reset ends the input as the end of the stream does, with no exception thrown through the application.
        Exception? error = await ended.Task.WaitAsync(SocketExtensions.Patience);
        Assert.Null(error);
        await server.ConnectionsDoneAsync();
        Assert.Equal(0, server.ConnectionCount);
    }

    [Fact]
    public async Task AnAbortResetsTheConnection()
    {
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            ReadResult result = await connection.Transport.Input.ReadAsync();
            connection.Transport.Input.AdvanceTo(result.Buffer.End);
            connection.Abort();
        });

        using Socket client = await server.ConnectAsync();
        await client.SendAllAsync("x"u8.ToArray());
        SocketException reset = await Assert.ThrowsAsync<SocketException>(() => client.ReceiveToEndAsync());
        Assert.Equal(SocketError.ConnectionReset, reset.SocketErrorCode);
    }

    [Fact]
    public async Task ConnectionClosedReadBeforeTheCloseIsCanceledByIt()
    {
        var read = new TaskCompletionSource<CancellationToken>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, connection =>
        {
            read.TrySetResult(connection.ConnectionClosed);
            return TestServer.EchoAsync(connection);
        });

        using Socket client = await server.ConnectAsync();
        await client.SendAllAsync("x"u8.ToArray());
        Assert.Equal("x"u8.ToArray(), await client.ReceiveExactlyAsync(1));
        CancellationToken closed = await read.Task.WaitAsync(SocketExtensions.Patience);
        Assert.False(closed.IsCancellationRequested);

        var canceled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using CancellationTokenRegistration registration = closed.UnsafeRegister(static s => ((TaskCompletionSource)s!).TrySetResult(), canceled);
        client.Shutdown(SocketShutdown.Send);
        Assert.Empty(await client.ReceiveToEndAsync());
        await canceled.Task.WaitAsync(SocketExtensions.Patience);
    }

    [Fact]
    public async Task ConnectionClosedFirstReadAfterTheCloseIsAlreadyCanceled()
    {
        // The token's source is made on first read: one read only once the connection has closed must still see it
        // closed, not a fresh token that nothing will cancel.
        var context = new TaskCompletionSource<ConnectionContext>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using TestServer server = await TestServer.StartAsync(kind, async connection =>
        {
            context.TrySetResult(connection);
            await TestServer.EchoAsync(connection);
        });

        using (Socket client = await server.ConnectAsync())
        {
            client.Shutdown(SocketShutdown.Send);
            Assert.Empty(await client.ReceiveToEndAsync());
        }

        await server.ConnectionsDoneAsync();
        ConnectionContext closed = await context.Task;
        Assert.True(closed.ConnectionClosed.IsCancellationRequested);
    }

    [Fact]
    public async Task AfterAResetTheServerStillServesNewConnections()
    {
        await using TestServer server = await TestServer.StartEchoAsync(kind);
        using (Socket doomed = await server.ConnectAsync())
        {
            await doomed.SendAllAsync(new byte[50_000]);
            doomed.LingerState = new LingerOption(true, 0);
        }

        using Socket client = await server.ConnectAsync();
        await client.SendAllAsync("again"u8.ToArray());
        Assert.Equal("again"u8.ToArray(), await client.ReceiveExactlyAsync(5));
    }
}

public sealed class CloseTestsOnIoUring() : CloseTests(TransportKind.IoUring);

public sealed class CloseTestsOnEpoll() : CloseTests(TransportKind.Epoll);
