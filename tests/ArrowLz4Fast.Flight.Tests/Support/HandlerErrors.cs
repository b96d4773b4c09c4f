using System;
using System.Collections.Concurrent;
using System.Linq;
using Microsoft.Extensions.Logging;

namespace ArrowLz4Fast.Flight.Tests.Support
{
    /// <summary>
    /// The errors a test server logs (gRPC logs what a handler threw before it answers "Exception was thrown by
    /// handler."), kept so that a test that gets such an answer can say what the server threw.
    /// </summary>
    internal sealed class HandlerErrors : ILoggerProvider
    {
        private const int Kept = 16;
        private readonly ConcurrentQueue<string> _errors = new ConcurrentQueue<string>();

        /// <summary>The last errors logged, newest last; "none" when there are none.</summary>
        public string Last(int count = 3)
        {
            string[] all = _errors.ToArray();
            return all.Length == 0 ? "none" : string.Join(" | ", all.Skip(Math.Max(0, all.Length - count)));
        }

        public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

        public void Dispose()
        {
        }

        private void Add(string error)
        {
            _errors.Enqueue(error);
            while (_errors.Count > Kept && _errors.TryDequeue(out _))
            {
            }
        }

        private sealed class Logger : ILogger
        {
            private readonly HandlerErrors _owner;
            private readonly string _category;

            public Logger(HandlerErrors owner, string category)
            {
                _owner = owner;
                _category = category;
            }

            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Error;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            {
                if (IsEnabled(logLevel))
                    _owner.Add($"{_category}: {formatter(state, exception)} {exception}");
            }
        }
    }
}
