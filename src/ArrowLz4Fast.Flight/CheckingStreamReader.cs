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
    /// </summary>
    internal sealed class CheckingStreamReader<T> : IAsyncStreamReader<T>
        where T : class
    {
        private readonly IAsyncStreamReader<T> _inner;
        private readonly FlightStreamChecker _checker;
        private ExceptionDispatchInfo? _failure;
        private T? _current;

        public CheckingStreamReader(IAsyncStreamReader<T> inner, FlightStreamChecker checker)
        {
            _inner = inner;
            _checker = checker;
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
                throw;
            }
            _current = message;
            return true;
        }
    }
}
