using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using ArrowLz4Fast.Frames;
using ArrowLz4Fast.Ipc;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// What a schema says (IpcSchemaVerifier, IpcTypeRules): one bad value per check, planted in a real schema, is
    /// refused by the wrapper at the value's offset, naming the field path, as InvalidDataException (not valid Arrow) or
    /// NotSupportedException (valid Arrow that Arrow .NET cannot read); Lz4FramedArrow refuses it with the same type.
    /// Without the checks Arrow .NET's reader throws Exception, ArgumentException, ArgumentNullException,
    /// ArgumentOutOfRangeException, InvalidCastException or InvalidOperationException on them, or reads on.
    /// The corpus streams hold Int, FloatingPoint, Utf8, Bool, List, Struct_ and dictionaries; the other types come
    /// from a schema Arrow .NET's own writer wrote (<see cref="AllTypes"/>).
    /// </summary>
    public class IpcSchemaSemanticTests
    {
        private const string NestedDict = "ipc/pyarrow/nested_dict.arrows";

        private sealed record Plant(string Stream, Type Expected, string Message, Func<SchemaMap, int> Apply);

        private static readonly Dictionary<string, Plant> s_plants = new()
        {
            ["Int bitWidth"] = new(NestedDict, typeof(InvalidDataException), "field 'st.x' type Int: bitWidth 16777248",
                m => Set32(m, m.At(m.TypeTable("st.x"), 0), 16777248)),
            ["FloatingPoint precision"] = new("ipc/pyarrow/numeric_zstd.arrows", typeof(InvalidDataException), "field 'c' type FloatingPoint: precision 3",
                m => Set16(m, m.At(m.TypeTable("c"), 0), 3)),
            ["Decimal bitWidth"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'dec' type Decimal: bitWidth 96",
                m => Set32(m, m.At(m.TypeTable("dec"), 2), 96)),
            ["Decimal precision"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'dec' type Decimal: precision 77 (1 to 76 for 256 bits)",
                m => Set32(m, m.At(m.TypeTable("dec"), 0), 77)),
            ["Date unit"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'date' type Date: unit 2",
                m => Set16(m, m.At(m.TypeTable("date"), 0), 2)),
            ["Time unit"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 't64' type Time: unit 4",
                m => Set16(m, m.At(m.TypeTable("t64"), 0), 4)),
            ["Time bitWidth for its unit"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 't64' type Time: bitWidth 32 for unit 2",
                m => Set32(m, m.At(m.TypeTable("t64"), 1), 32)),
            ["Timestamp unit"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'ts' type Timestamp: unit 9",
                m => Set16(m, m.At(m.TypeTable("ts"), 0), 9)),
            ["Duration unit"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'dur' type Duration: unit 4",
                m => Set16(m, m.At(m.TypeTable("dur"), 0), 4)),
            ["Interval unit"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'iv' type Interval: unit 3",
                m => Set16(m, m.At(m.TypeTable("iv"), 0), 3)),
            ["FixedSizeBinary negative width"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'fsb' type FixedSizeBinary: byteWidth -1",
                m => Set32(m, m.At(m.TypeTable("fsb"), 0), -1)),
            ["FixedSizeBinary zero width"] = new(nameof(AllTypes), typeof(NotSupportedException), "field 'fsb' type FixedSizeBinary: byteWidth 0",
                m => Set32(m, m.At(m.TypeTable("fsb"), 0), 0)),
            ["FixedSizeList negative size"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'fsl' type FixedSizeList: listSize -5",
                m => Set32(m, m.At(m.TypeTable("fsl"), 0), -5)),
            ["FixedSizeList zero size"] = new(nameof(AllTypes), typeof(NotSupportedException), "field 'fsl' type FixedSizeList: listSize 0",
                m => Set32(m, m.At(m.TypeTable("fsl"), 0), 0)),
            ["Union mode"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'u' type Union: mode 2",
                m => Set16(m, m.At(m.TypeTable("u"), 0), 2)),
            ["Union type id range"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'u' type Union: type id 128",
                m => Set32(m, m.VectorElement(m.TypeTable("u"), 1, 0), 128)),
            ["Union type id twice"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'u' type Union: type id 0 is listed twice",
                m => Set32(m, m.VectorElement(m.TypeTable("u"), 1, 1), 0)),
            ["Union type ids per child"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'u' type Union: 1 typeIds for 2 children",
                m => Set32(m, m.VectorLength(m.TypeTable("u"), 1), 1)),
            ["List children"] = new(NestedDict, typeof(InvalidDataException), "field 'l' type List: 0 children, the type has 1",
                m => Set32(m, m.VectorLength(m.Field("l"), 5), 0)),
            ["Map entries of two"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'map' type Map: its child is not a Struct_ of two fields",
                m => { Set32(m, m.VectorLength(m.Field("map.entries"), 5), 1); return m.TableOffset(m.Field("map.entries")); }),
            ["Struct without children"] = new(NestedDict, typeof(NotSupportedException), "field 'st' type Struct_: no children",
                m => Set32(m, m.VectorLength(m.Field("st"), 5), 0)),
            ["Field name present"] = new(NestedDict, typeof(NotSupportedException), "field '#0' has no name",
                m => { m.Int16(m.VTableEntry(m.Field("l"), 0), 0); return m.TableOffset(m.Field("l")); }),
            ["Custom metadata key present"] = new(nameof(AllTypes), typeof(NotSupportedException), "schema Schema.custom_metadata entry 0 has no key",
                m =>
                {
                    FlatTable pair = m.VectorTable(m.Schema, 2, 0);
                    m.Int16(m.VTableEntry(pair, 0), 0);
                    return m.TableOffset(pair);
                }),
            ["Type present"] = new(NestedDict, typeof(InvalidDataException), "field 'flag' has no type (type_type NONE)",
                m => { int at = m.At(m.Field("flag"), 2); m.Byte(at, 0); return at; }),
            ["Type table present"] = new(NestedDict, typeof(InvalidDataException), "field 'l.item' type Int: the type table is missing",
                m => { m.Int16(m.VTableEntry(m.Field("l.item"), 3), 0); return m.TableOffset(m.Field("l.item")); }),
            ["Dictionary index bitWidth"] = new(NestedDict, typeof(InvalidDataException), "field 'cat' dictionary indexType Int: bitWidth 7",
                m => Set32(m, m.At(m.Sub(m.Encoding("cat"), 1), 0), 7)),
            ["Dictionary id with two value types"] = new(nameof(AllTypes), typeof(InvalidDataException), "field 'd2' dictionary id 0 is named again with another value type (Utf8, then Int)",
                m => { int at = m.At(m.Encoding("d2"), 0); m.Int32(at, 0); m.Int32(at + 4, 0); return at; }),
            ["String offset 0"] = new("ipc/pyarrow/tiny_batches.arrows", typeof(InvalidDataException), "Field.name: offset 0 points at itself",
                m => Set32(m, m.At(m.Field("name"), 0), 0)),
            ["First message a schema"] = new(NestedDict, typeof(InvalidDataException), "the stream's first message has header type 0, not a Schema",
                m => { int at = m.HeaderType; m.Byte(at, 0); return -1; }),
            ["Record batch nodes"] = new("ipc/java/strings.arrows", typeof(InvalidDataException), "the record batch lists 2 field node(s) but its schema needs 1",
                m => { Set32(m, m.VectorLength(m.Schema, 1), 1); return -1; }),
            ["Null field's null count"] = new("ipc/pyarrow/tiny_batches.arrows", typeof(NotSupportedException), "node 0, of a Null field, has length",
                m => { m.Byte(m.At(m.Field("id"), 2), 1); return -1; }),
            ["Null dictionary values' null count"] = new(NestedDict, typeof(NotSupportedException), "the dictionary batch of id 0's node 0, of a Null field, has length",
                m => { m.Byte(m.At(m.Field("cat"), 2), 1); return -1; }),
            ["Dictionary batch id"] = new(NestedDict, typeof(InvalidDataException), "a dictionary batch of id 0, which its schema does not name",
                m => { m.Int16(m.VTableEntry(m.Field("cat"), 4), 0); return -1; }),
        };

        public static IEnumerable<object[]> Plants() => s_plants.Keys.Select(k => new object[] { k });

        /// <summary>The unplanted streams read through the wrapper as they are, so nothing below is refused for being unusual.</summary>
        [Fact]
        public void The_unplanted_schemas_pass()
        {
            foreach (string stream in s_plants.Values.Select(p => p.Stream).Distinct())
            {
                byte[] bytes = Load(stream);
                IpcWrapped.Drain(bytes, IpcWrapped.Options(1), new[] { 4096 });
                using var reader = new ArrowStreamReader(new IpcDecompressingStream(new MemoryStream(bytes), IpcWrapped.Options(1)), Memory.SlabMemoryAllocator.Shared, new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory()), leaveOpen: false);
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batch.Dispose();
                Assert.NotNull(reader.Schema);
            }
        }

        [Theory]
        [MemberData(nameof(Plants))]
        public void A_planted_value_is_refused_at_its_offset_naming_the_field(string check)
        {
            Plant plant = s_plants[check];
            byte[] bytes = Load(plant.Stream);
            int offset = plant.Apply(new SchemaMap(bytes));

            Exception? wrapper = Record.Exception(() => IpcWrapped.Drain(bytes, IpcWrapped.Options(1), new[] { 4096 }));
            Assert.NotNull(wrapper);
            Assert.IsType(plant.Expected, wrapper);
            Assert.Contains(plant.Message, wrapper!.Message, StringComparison.Ordinal);
            if (offset >= 0)
            {
                if (wrapper is InvalidDataException)
                    Assert.Equal(offset, Assert.IsType<Lz4FrameException>(wrapper.InnerException).Offset);
                else
                    Assert.Contains($"at byte offset {offset} of the input stream", wrapper.Message, StringComparison.Ordinal);
            }

            Exception? framed = Record.Exception(() =>
            {
                using ArrowStreamReader reader = Lz4FramedArrow.CreateStreamReader(new MemoryStream(Framed(bytes)), compressionCodecFactory: new Lz4FastCodecFactory(new Apache.Arrow.Compression.CompressionCodecFactory()));
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                    batch.Dispose();
            });
            Assert.IsType(plant.Expected, framed);
            Assert.Contains(plant.Message, framed!.Message, StringComparison.Ordinal);
        }

        /// <summary>
        /// A schema of the types the corpus lacks, written by Arrow .NET's writer (schema, then end of stream): Decimal,
        /// Date, Time, Timestamp, Duration, Interval, FixedSizeBinary, FixedSizeList, Map, dense Union, two dictionaries,
        /// and a metadata pair.
        /// </summary>
        private static byte[] AllTypes()
        {
            var union = new UnionType(new[] { new Field("i", Int32Type.Default, true), new Field("s", StringType.Default, true) }, new[] { 0, 1 }, UnionMode.Dense);
            var schema = new Schema.Builder()
                .Field(new Field("dec", new Decimal256Type(40, 2), true))
                .Field(new Field("date", Date32Type.Default, true))
                .Field(new Field("t64", TimeType.Microsecond, true))
                .Field(new Field("ts", new TimestampType(TimeUnit.Microsecond, "UTC"), true))
                .Field(new Field("dur", DurationType.Second, true))
                .Field(new Field("iv", IntervalType.DayTime, true))
                .Field(new Field("fsb", new FixedSizeBinaryType(4), true))
                .Field(new Field("fsl", new FixedSizeListType(Int32Type.Default, 3), true))
                .Field(new Field("map", new MapType(StringType.Default, Int32Type.Default), true))
                .Field(new Field("u", union, true))
                .Field(new Field("d1", new DictionaryType(Int32Type.Default, StringType.Default, false), true))
                .Field(new Field("d2", new DictionaryType(Int16Type.Default, Int32Type.Default, false), true))
                .Metadata("k", "v")
                .Build();
            var output = new MemoryStream();
            using (var writer = new ArrowStreamWriter(output, schema, leaveOpen: true))
            {
                writer.WriteStart();
                writer.WriteEnd();
            }
            return output.ToArray();
        }

        private static byte[] Load(string stream) => stream == nameof(AllTypes) ? AllTypes() : File.ReadAllBytes(Corpus.Committed(stream));

        private static byte[] Framed(byte[] ipc)
        {
            var output = new MemoryStream();
            using (var writer = new Lz4FrameStream(output, System.IO.Compression.CompressionMode.Compress, leaveOpen: true))
                writer.Write(ipc, 0, ipc.Length);
            return output.ToArray();
        }

        private static int Set32(SchemaMap map, int offset, int value)
        {
            map.Int32(offset, value);
            return offset;
        }

        private static int Set16(SchemaMap map, int offset, short value)
        {
            map.Int16(offset, value);
            return offset;
        }
    }
}
