using System.Buffers;
using System.IO.Pipelines;
using System.Threading.Tasks.Sources;
using PlatformBenchmarks.Transport.Interop;

namespace PlatformBenchmarks.Transport;

internal sealed partial class TransportConnection : IValueTaskSource<int>
{
    private ManualResetValueTaskSourceCore<int> _sendWait;
    private bool _waitingToSend;
    private bool _kernelHoldsSend;

    /// <summary>True while a send waits for room (epoll) or for its completion (io_uring).</summary>
    internal bool WaitingToSend => _waitingToSend;

    /// <summary>
    /// The send loop, on the loop thread: everything the application flushed goes out in as few sends as the kind can
    /// manage (one per flush when the socket has room). When the application completes its output, the FIN follows
    /// the last byte: by shutdown(2) on the loop's next turn, or by the close.
    /// </summary>
    private async Task SendLoopAsync()
    {
        PipeReader output = _output.Reader;
        bool graceful = true;
        try
        {
            while (true)
            {
                ReadResult result = await output.ReadAsync();
                if (_closed)
                {
                    output.AdvanceTo(result.Buffer.End);
                    graceful = false;
                    break;
                }

                ReadOnlySequence<byte> buffer = result.Buffer;
                while (!buffer.IsEmpty)
                {
                    int sent = await _loop.SendAsync(this, buffer);
                    if (sent < 0 || _closed)
                    {
                        if (sent < 0 && sent != -Libc.ECONNABORTED)
                        {
                            // Reset or broken pipe: the peer is gone; the application's next flush reports it completed.
                            TransportLog.ConnectionError(_loop.Logger, ConnectionId, -sent);
                        }

                        graceful = false;
                        break;
                    }

                    buffer = buffer.Slice(sent);
                }

                output.AdvanceTo(result.Buffer.End);
                if (!graceful || result.IsCompleted || result.IsCanceled)
                {
                    break;
                }
            }
        }
        catch (Exception ex)
        {
            graceful = false;
            TransportLog.SendFailed(_loop.Logger, ex, ConnectionId);
        }

        await output.CompleteAsync();
        _sendDone = true;
        TryClose();
        if (graceful && !_closed && !_peerClosed)
        {
            // RFC 9112 §9.6: the FIN goes right after the last response; the read side stays open for the linger. On
            // the loop's next turn, because mostly the application disposes the connection in this one and close(2)
            // sends the same FIN; a peer that closed first was read to its end, so the close's FIN is all it waits for
            // (docs/decisions/0017-connection-cost.md).
            _loop.Post(static s => ((TransportConnection)s!).ShutdownOutput(), this);
        }
    }

    private void ShutdownOutput()
    {
        if (!_closed)
        {
            _ = Libc.Shutdown(Fd, Libc.SHUT_WR);
        }
    }

    /// <summary>
    /// For a kind whose send must wait: an awaitable completed by <see cref="CompleteSendWait"/>. With
    /// <paramref name="kernelHoldsMemory"/> the kernel was given the bytes' memory (io_uring), and only the kind may end
    /// the wait, from the send's completion: a close does not, because the pipe would hand the blocks out again.
    /// </summary>
    internal ValueTask<int> WaitToSend(bool kernelHoldsMemory)
    {
        _sendWait.Reset();
        _waitingToSend = true;
        _kernelHoldsSend = kernelHoldsMemory;
        return new ValueTask<int>(this, _sendWait.Version);
    }

    /// <summary>Ends a wait from <see cref="WaitToSend"/> with bytes sent, 0 (room now: try again) or a negative errno.</summary>
    internal void CompleteSendWait(int result)
    {
        if (_waitingToSend)
        {
            _waitingToSend = false;
            _kernelHoldsSend = false;
            _sendWait.SetResult(result);
        }
    }

    int IValueTaskSource<int>.GetResult(short token) => _sendWait.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<int>.GetStatus(short token) => _sendWait.GetStatus(token);

    void IValueTaskSource<int>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _sendWait.OnCompleted(continuation, state, token, flags);
}
