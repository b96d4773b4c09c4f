using System;
using System.Collections.Generic;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>A defect <see cref="IpcSchemaVerifier"/> found in its walk; the fields it passes on the way out add their names.</summary>
    internal sealed class IpcSchemaFault : Exception
    {
        private readonly int _position;
        private readonly bool _notSupported;
        private readonly string _what;

        private IpcSchemaFault(int position, bool notSupported, string what)
        {
            _position = position;
            _notSupported = notSupported;
            _what = what;
        }

        /// <summary>Innermost first.</summary>
        public List<string> Names { get; } = new List<string>();

        public static IpcSchemaFault Invalid(int position, string what) => new IpcSchemaFault(position, false, what);

        public static IpcSchemaFault NotSupported(int position, string what) => new IpcSchemaFault(position, true, what);

        public Exception ToException(FlatReader reader)
        {
            Names.Reverse();
            string what = Names.Count == 0 ? _what : $"field '{string.Join(".", Names)}' {_what}";
            long offset = reader.InputOffset(_position);
            return _notSupported ? IpcErrors.NotSupported(offset, $"schema {what}") : IpcErrors.At(offset, $"message metadata, schema {what}");
        }
    }
}
