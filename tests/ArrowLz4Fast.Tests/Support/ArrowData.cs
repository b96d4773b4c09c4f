using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using Xunit;

namespace ArrowLz4Fast.Tests.Support
{
    internal static class ArrowData
    {
        /// <summary>Reads every record batch of an IPC stream (.arrows) or file (.arrow).</summary>
        public static List<RecordBatch> ReadAll(string path, ICompressionCodecFactory factory) =>
            ReadAll(File.ReadAllBytes(path), path.EndsWith(".arrow", StringComparison.Ordinal), factory);

        public static List<RecordBatch> ReadAll(byte[] bytes, bool fileFormat, ICompressionCodecFactory factory) =>
            ReadAll(bytes, fileFormat, factory, allocator: null);

        /// <summary>Reads every record batch with the given allocator (<see langword="null"/>: Arrow's default).</summary>
        public static List<RecordBatch> ReadAll(byte[] bytes, bool fileFormat, ICompressionCodecFactory factory, MemoryAllocator? allocator)
        {
            var stream = new MemoryStream(bytes, writable: false);
            return ReadAll(fileFormat
                ? new ArrowFileReader(stream, allocator!, factory, leaveOpen: false)
                : new ArrowStreamReader(stream, allocator!, factory, leaveOpen: false));
        }

        /// <summary>Every record batch the reader gives, then disposes it; on a failure, the batches read so far are disposed.</summary>
        public static List<RecordBatch> ReadAll(ArrowStreamReader reader)
        {
            using (reader)
            {
                var batches = new List<RecordBatch>();
                try
                {
                    while (reader.ReadNextRecordBatch() is RecordBatch batch)
                        batches.Add(batch);
                }
                catch
                {
                    DisposeAll(batches);
                    throw;
                }
                return batches;
            }
        }

        public static void DisposeAll(IEnumerable<RecordBatch> batches)
        {
            foreach (RecordBatch batch in batches)
                batch.Dispose();
        }

        /// <summary>Asserts two batch lists hold the same values: same types, lengths, null counts and buffer bytes, recursively.</summary>
        public static void AssertSame(IReadOnlyList<RecordBatch> expected, IReadOnlyList<RecordBatch> actual) =>
            ForEachColumn(expected, actual, (e, a, where) => AssertSame(e.Data, a.Data, where, allowLongerBuffers: false));

        /// <summary>
        /// As <see cref="AssertSame(IReadOnlyList{RecordBatch}, IReadOnlyList{RecordBatch})"/>, but with
        /// <paramref name="allowLongerBuffers"/> an actual buffer may be longer than the expected one (an allocator that
        /// rounds up) and only its first bytes, as many as the expected buffer has, are compared.
        /// </summary>
        public static void AssertSame(IReadOnlyList<RecordBatch> expected, IReadOnlyList<RecordBatch> actual, bool allowLongerBuffers, string context) =>
            ForEachColumn(expected, actual, (e, a, where) => AssertSame(e.Data, a.Data, $"{context}: {where}", allowLongerBuffers));

        /// <summary>
        /// Asserts batches hold the same values, element by element, for tables that went through a writer: buffers may
        /// differ in padding and capacity, values may not.
        /// </summary>
        public static void AssertSameValues(IReadOnlyList<RecordBatch> expected, IReadOnlyList<RecordBatch> actual) =>
            ForEachColumn(expected, actual, (e, a, where) =>
            {
                Assert.Equal(e.Data.DataType.TypeId, a.Data.DataType.TypeId);
                Assert.Equal(e.NullCount, a.NullCount);
                for (int i = 0; i < e.Length; i++)
                {
                    Assert.True(e.IsNull(i) == a.IsNull(i), $"{where} row {i}: null flag differs");
                    if (!e.IsNull(i))
                        Assert.True(Value(e, i) == Value(a, i), $"{where} row {i}: {Value(a, i)}, expected {Value(e, i)}");
                }
            });

        private static void ForEachColumn(IReadOnlyList<RecordBatch> expected, IReadOnlyList<RecordBatch> actual, Action<IArrowArray, IArrowArray, string> assert)
        {
            Assert.Equal(expected.Count, actual.Count);
            for (int b = 0; b < expected.Count; b++)
            {
                Assert.Equal(expected[b].Length, actual[b].Length);
                Assert.Equal(expected[b].ColumnCount, actual[b].ColumnCount);
                for (int c = 0; c < expected[b].ColumnCount; c++)
                    assert(expected[b].Column(c), actual[b].Column(c), $"batch {b} column {c}");
            }
        }

        private static string Value(IArrowArray array, int index) => array switch
        {
            Int32Array x => x.GetValue(index)!.Value.ToString(System.Globalization.CultureInfo.InvariantCulture),
            Int64Array x => x.GetValue(index)!.Value.ToString(System.Globalization.CultureInfo.InvariantCulture),
            DoubleArray x => x.GetValue(index)!.Value.ToString("R", System.Globalization.CultureInfo.InvariantCulture),
            StringArray x => x.GetString(index),
            BinaryArray x => Convert.ToHexString(x.GetBytes(index)),
            _ => throw new NotSupportedException(array.GetType().Name),
        };

        private static void AssertSame(ArrayData expected, ArrayData actual, string where, bool allowLongerBuffers)
        {
            Assert.Equal(expected.DataType.TypeId, actual.DataType.TypeId);
            Assert.True(expected.Length == actual.Length, $"{where}: length {actual.Length}, expected {expected.Length}");
            Assert.True(expected.NullCount == actual.NullCount, $"{where}: null count {actual.NullCount}, expected {expected.NullCount}");
            Assert.Equal(expected.Offset, actual.Offset);
            Assert.Equal(expected.Buffers.Length, actual.Buffers.Length);
            for (int i = 0; i < expected.Buffers.Length; i++)
            {
                ReadOnlySpan<byte> e = expected.Buffers[i].Span, a = actual.Buffers[i].Span;
                if (allowLongerBuffers && a.Length > e.Length)
                    a = a.Slice(0, e.Length);
                Assert.True(e.SequenceEqual(a), $"{where}: buffer {i} differs");
            }
            Assert.Equal(expected.Children?.Length ?? 0, actual.Children?.Length ?? 0);
            for (int i = 0; i < (expected.Children?.Length ?? 0); i++)
                AssertSame(expected.Children![i], actual.Children![i], $"{where} child {i}", allowLongerBuffers);
            Assert.Equal(expected.Dictionary is null, actual.Dictionary is null);
            if (expected.Dictionary is not null)
                AssertSame(expected.Dictionary, actual.Dictionary!, $"{where} dictionary", allowLongerBuffers);
        }
    }
}
