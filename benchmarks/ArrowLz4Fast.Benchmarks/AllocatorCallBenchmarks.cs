using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow.Memory;
using ArrowLz4Fast.Benchmarks.Harness;
using BenchmarkDotNet.Attributes;

namespace ArrowLz4Fast.Benchmarks
{
    /// <summary>
    /// The allocator's own share of a read of many small batches: the Allocate and Dispose calls that one
    /// ArrowStreamReader read of a stream makes (recorded once, in order, with their lengths), replayed alone against
    /// each allocator, without the reader and the codec. pyarrow/tiny_batches is the stream where the package's
    /// allocator is furthest from the better of Arrow's default and a plain ArrayPool one in the whole-read table
    /// (StreamBenchmarks), so this says how much of that gap the allocator's calls themselves account for. The
    /// replay writes the first byte of each buffer, as a reader reaches every buffer's memory.
    /// </summary>
    [MemoryDiagnoser]
    public class AllocatorCallBenchmarks
    {
        private MemoryAllocator _allocator = null!;
        private int[] _events = Array.Empty<int>();
        private IMemoryOwner<byte>?[] _owners = Array.Empty<IMemoryOwner<byte>?>();

        [Params("pyarrow/tiny_batches")]
        public string Stream { get; set; } = "pyarrow/tiny_batches";

        [Params(Allocators.Native, Allocators.ArrayPool, Allocators.Slab)]
        public string Allocator { get; set; } = Allocators.Slab;

        /// <summary>Allocate calls per replay (one read of <see cref="Stream"/>).</summary>
        public int Allocations { get; private set; }

        [GlobalSetup]
        public void Setup()
        {
            _allocator = Allocators.Create(Allocator);
            var recorder = new RecordingAllocator();
            ReplayBenchmarks.ReadAll(new MemoryStream(ProducerStreams.LoadStream(Stream), writable: false), new Lz4FastCodecFactory(), recorder);
            _events = recorder.Events.ToArray();
            Allocations = recorder.Allocations;
            _owners = new IMemoryOwner<byte>?[Allocations];
            Console.WriteLine($"// {Stream}: {Allocations} Allocate calls per read, {recorder.Disposed} disposed");
        }

        /// <summary>Replays one read's calls: a length allocates the next buffer, ~i disposes buffer i.</summary>
        [Benchmark]
        public int ReplayOneRead()
        {
            int next = 0;
            foreach (int e in _events)
            {
                if (e >= 0)
                {
                    IMemoryOwner<byte> owner = _allocator.Allocate(e);
                    if (e > 0)
                        owner.Memory.Span[0] = 1;
                    _owners[next++] = owner;
                }
                else
                {
                    _owners[~e]!.Dispose();
                    _owners[~e] = null;
                }
            }
            // A buffer the read never disposed (none in the streams measured) is disposed here, so replays do not pile up.
            for (int i = 0; i < next; i++)
                _owners[i]?.Dispose();
            return next;
        }

        /// <summary>Records the lengths asked for and the order of the disposals, through Arrow's default allocator.</summary>
        private sealed class RecordingAllocator : MemoryAllocator
        {
            public List<int> Events { get; } = new();

            public int Allocations { get; private set; }

            public int Disposed { get; private set; }

            protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
            {
                bytesAllocated = length;
                Events.Add(length);
                return new Recorded(this, Allocations++, MemoryAllocator.Default.Value.Allocate(length));
            }

            private sealed class Recorded : IMemoryOwner<byte>
            {
                private readonly RecordingAllocator _recorder;
                private readonly int _index;
                private IMemoryOwner<byte>? _inner;

                public Recorded(RecordingAllocator recorder, int index, IMemoryOwner<byte> inner)
                {
                    _recorder = recorder;
                    _index = index;
                    _inner = inner;
                }

                public Memory<byte> Memory => _inner?.Memory ?? throw new ObjectDisposedException(nameof(Recorded));

                public void Dispose()
                {
                    if (_inner is null)
                        return;
                    _inner.Dispose();
                    _inner = null;
                    _recorder.Events.Add(~_index);
                    _recorder.Disposed++;
                }
            }
        }
    }
}
