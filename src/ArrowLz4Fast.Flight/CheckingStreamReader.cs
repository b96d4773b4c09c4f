using System;
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;
using Google.Protobuf;
using Grpc.Core;

namespace ArrowLz4Fast.Flight
{
    /// <summary>
    /// A FlightData stream reader that passes each message through the call's <see cref="FlightStreamChecker"/> before
    /// Flight's reader sees it. After a failure every later read fails the same way: nothing compressed gets past.
    /// On a client, a failure also ends the call: the peer may still be sending, and a call left open holds its HTTP/2
    /// stream (and the server's write) until someone disposes it; enough of them fill the connection's stream limit.
    /// </summary>
    internal sealed class CheckingStreamReader<T> : IAsyncStreamReader<T>
        where T : class
    {
        private readonly IAsyncStreamReader<T> _inner;
        private readonly FlightStreamChecker _checker;
        private readonly Action? _endCall;
        private ExceptionDispatchInfo? _failure;
        private T? _current;

        /// <param name="inner">gRPC's reader.</param>
        /// <param name="checker">The call's checks.</param>
        /// <param name="endCall">
        /// Cancels the call (a client call's Dispose), run when a message fails; <see langword="null"/> on a server, whose
        /// call ends when the handler, which gets the failure, returns.
        /// </param>
        public CheckingStreamReader(IAsyncStreamReader<T> inner, FlightStreamChecker checker, Action? endCall)
        {
            _inner = inner;
            _checker = checker;
            _endCall = endCall;
        }

        public T Current => _current ?? throw new InvalidOperationException("MoveNext has not returned true.");

        /// <summary>The exception this reader threw, so that a server handler can tell its own failures apart.</summary>
        public Exception? Failure => _failure?.SourceException;

        public async Task<bool> MoveNext(CancellationToken cancellationToken)
        {
            _failure?.Throw();
            _current = null;
            if (!await _inner.MoveNext(cancellationToken).ConfigureAwait(false))
            {
                _checker.Release();
                return false;
            }
            T message = _inner.Current;
            try
            {
                _checker.Next((IMessage)message);
            }
            catch (Exception e)
            {
                _failure = ExceptionDispatchInfo.Capture(e);
                _checker.Release();
                // The reader throws this exception, not the RpcException that gRPC gives reads of a cancelled call.
                _endCall?.Invoke();
                throw;
            }
            _current = message;
            return true;
        }
    }
}
