using System;
using System.Runtime.ExceptionServices;
using System.Threading;
using ArrowLz4Fast.Frames;

namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// One body decoded by the calling thread and up to degree - 1 thread-pool helpers, which claim buffers (largest
    /// first) from one interlocked counter. The caller takes part and then waits only for buffers helpers have claimed:
    /// a helper that starts after every buffer is claimed exits without touching the body. A job is reused for the next
    /// body once every helper it queued has exited, so steady-state reads allocate nothing.
    /// </summary>
    internal sealed unsafe class IpcParallelDecode
#if NET
        : IThreadPoolWorkItem
#endif
    {
#if !NET
        private static readonly WaitCallback s_run = state => ((IpcParallelDecode)state!).Help();
#endif
        private readonly object _gate = new();
        private bool _signaled;
        private byte* _body;
        private int _bodyLength;
        private byte* _destination;
        private int _destinationLength;
        private long _bodyOffset;
        private IpcBufferItem[] _items = Array.Empty<IpcBufferItem>();
        private int[] _order = Array.Empty<int>();
        private int _count;
        private Lz4FrameDecoderOptions _options;
        private int _next;
        private int _completed;
        private int _helpers;
        private int _errorIndex;
        private Exception? _error;

        /// <summary>No helper of an earlier body is still running: the job may take another.</summary>
        public bool Idle => Volatile.Read(ref _helpers) == 0;

        public void Run(ReadOnlySpan<byte> body, Span<byte> destination, long bodyOffset, IpcBufferItem[] items, int[] order, int count, int helpers, Lz4FrameDecoderOptions options)
        {
            fixed (byte* source = body)
            fixed (byte* target = destination)
            {
                _body = source;
                _bodyLength = body.Length;
                _destination = target;
                _destinationLength = destination.Length;
                _bodyOffset = bodyOffset;
                _items = items;
                _order = order;
                _count = count;
                _options = options;
                _completed = 0;
                _errorIndex = int.MaxValue;
                _error = null;
                _signaled = false;
                Volatile.Write(ref _next, 0);

                for (int i = 0; i < helpers; i++)
                {
                    Interlocked.Increment(ref _helpers);
#if NET
                    ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
#else
                    ThreadPool.UnsafeQueueUserWorkItem(s_run, this);
#endif
                }

                Work();
                if (Volatile.Read(ref _completed) != _count)
                {
                    lock (_gate)
                    {
                        while (!_signaled)
                            Monitor.Wait(_gate);
                    }
                }
                _items = Array.Empty<IpcBufferItem>();
                _order = Array.Empty<int>();
                _body = null;
                _destination = null;
            }
            if (_error is not null)
                ExceptionDispatchInfo.Capture(_error).Throw();
        }

#if NET
        void IThreadPoolWorkItem.Execute() => Help();
#endif

        private void Help()
        {
            try
            {
                Work();
            }
            finally
            {
                Interlocked.Decrement(ref _helpers);
            }
        }

        private void Work()
        {
            int i;
            while ((i = Interlocked.Increment(ref _next) - 1) < _count)
            {
                int index = _order[i];
                try
                {
                    IpcBufferDecoder.Decode(new ReadOnlySpan<byte>(_body, _bodyLength), new Span<byte>(_destination, _destinationLength), in _items[index], _bodyOffset, _options);
                }
                catch (Exception e)
                {
                    // The error of the first failing buffer in body order, whichever thread met it first.
                    lock (_gate)
                    {
                        if (index < _errorIndex)
                        {
                            _errorIndex = index;
                            _error = e;
                        }
                    }
                }
                if (Interlocked.Increment(ref _completed) == _count)
                {
                    lock (_gate)
                    {
                        _signaled = true;
                        Monitor.PulseAll(_gate);
                    }
                }
            }
        }
    }
}
