using System;
using System.Runtime.ExceptionServices;
using System.Threading.Tasks;
using ArrowLz4Fast.Ipc;
using Grpc.Core;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// A client's upload stream or a server's response stream that compresses each FlightData before gRPC serializes it.
    /// One class for both: they differ only in the client's CompleteAsync.
    /// </summary>
    /// <remarks>
    /// Pipelined one message deep: WriteAsync compresses its message while the previous one is still being written, then
    /// waits for that write, starts its own and returns. Compression thus overlaps the transfer instead of adding to it
    /// (with one machine compressing and decoding, the transfer is the peer's decode), and at most two messages are held:
    /// the one in flight and the one being compressed. The last write is awaited by <see cref="CompleteAsync"/> on a
    /// client and by <see cref="RunAsync"/> around a server's handler, before gRPC ends the call. A write's failure is
    /// caught where it happens and rethrown by the next call here, so a client that disposes its call without
    /// CompleteAsync leaves no faulted task for the finalizer (TaskScheduler.UnobservedTaskException).
    /// <para>
    /// A compressed message's metadata and body are rented from ArrayPool&lt;byte&gt;.Shared, wrapped in its copy, and
    /// given back once the inner write's task has completed, however it ended, or at once when the message is never
    /// handed over (a previous write failed): at most two such messages per call. A write whose task never completes
    /// leaves its arrays to the GC. So a stream writer inside this one (an interceptor placed after ours) must not keep
    /// a message past the completion of its WriteAsync: it would see the memory of later messages.
    /// </para>
    /// </remarks>
    internal sealed class CompressingStreamWriter<T> : IClientStreamWriter<T>, IServerStreamWriter<T>
        where T : class
    {
        private readonly IAsyncStreamWriter<T> _inner;
        private readonly FlightCodecSettings _settings;
        private Task? _pending;
        private ExceptionDispatchInfo? _failure;

        public CompressingStreamWriter(IAsyncStreamWriter<T> inner, FlightCodecSettings settings)
        {
            _inner = inner;
            _settings = settings;
        }

        public WriteOptions? WriteOptions
        {
            get => _inner.WriteOptions;
            set => _inner.WriteOptions = value;
        }

        public async Task CompleteAsync()
        {
            if (_inner is not IClientStreamWriter<T> client)
                throw new InvalidOperationException("A server's response stream has no CompleteAsync.");
            await FlushAsync().ConfigureAwait(false);
            await client.CompleteAsync().ConfigureAwait(false);
        }

        public async Task WriteAsync(T message)
        {
            // Compressed before the previous write is awaited: that is the overlap. gRPC allows one write at a time, so
            // this one starts only after it; a failure of the previous write surfaces here, as it would have there.
            T compressed = FlightDataCompressor.Compress(message, _settings, out IpcCompressedMessage rented);
            await TakePending().ConfigureAwait(false);    // inline rather than FlushAsync: no second state machine per message
            if (_failure is not null)
            {
                rented.Return();    // never handed to gRPC
                ThrowFailure();
            }
            _pending = WriteObservedAsync(compressed, rented);
        }

        /// <summary>
        /// Runs a server handler over this stream, then waits for its last write. When the handler fails, the last write
        /// is still waited for (gRPC must not end the call under it), and the handler's exception is the one that counts.
        /// </summary>
        public async Task RunAsync(Func<Task> handler)
        {
            try
            {
                await handler().ConfigureAwait(false);
            }
            catch (Exception)
            {
                await TakePending().ConfigureAwait(false);    // never faults; the handler's failure is reported instead
                _failure = null;
                throw;
            }
            await FlushAsync().ConfigureAwait(false);
        }

        private async Task FlushAsync()
        {
            await TakePending().ConfigureAwait(false);
            ThrowFailure();
        }

        /// <summary>
        /// The write in flight, now the caller's to await (a completed task when there is none). It never faults: the
        /// caller then rethrows or drops <see cref="_failure"/>.
        /// </summary>
        private Task TakePending()
        {
            Task pending = _pending ?? Task.CompletedTask;
            _pending = null;
            return pending;
        }

        private void ThrowFailure()
        {
            ExceptionDispatchInfo? failure = _failure;
            _failure = null;
            failure?.Throw();
        }

        /// <summary>
        /// The inner write, whose failure is kept for the next call instead of faulting a task no one may await; then the
        /// message's pooled arrays go back.
        /// </summary>
        private async Task WriteObservedAsync(T message, IpcCompressedMessage rented)
        {
            try
            {
                await _inner.WriteAsync(message).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                _failure = ExceptionDispatchInfo.Capture(e);
            }
            finally
            {
                // gRPC serialized the message inside the awaited write (grpc-dotnet 2.71, src/Grpc.Net.Client/Internal/HttpContentClientStreamWriter.cs:169
                // and StreamExtensions.cs:306; src/Grpc.AspNetCore.Server/Internal/HttpContextStreamWriter.cs:105 and PipeExtensions.cs:98).
                rented.Return();
            }
        }
    }
}
