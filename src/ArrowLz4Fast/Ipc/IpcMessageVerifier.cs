namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// Verifies a whole Message flatbuffer (format/Message.fbs, Schema.fbs) before anything else reads it: every table,
    /// vtable, field, vector, string and union reached from the root lies inside the metadata, and every union type is
    /// one the format defines. Arrow .NET's reader follows these without checking first (docs/correctness.md): a children
    /// count read from a stray offset makes it allocate an array of that size before its own bounds check fails.
    /// </summary>
    /// <remarks>
    /// Bounds, after Arrow C++'s <c>VerifyFlatbuffers</c> (max_depth 128, max_tables 8 x size):
    /// <list type="bullet">
    /// <item>Depth: at most <see cref="MaxDepth"/> nested tables (Message, Schema, Field, child Field, ...), as in Arrow
    /// C++; Arrow .NET reads nested fields by recursion, so depth is its stack.</item>
    /// <item>Work: the walk visits what Arrow's reader visits, once per reference (a table shared by many parents is
    /// visited, and charged, each time, as Arrow reads it), and charges 1 per table, 1 + count per vector and
    /// 1 + length/8 per string, at most <see cref="WorkPerByte"/> per metadata byte. A flatbuffer without shared tables
    /// costs at most 1 per byte (a table takes 4 bytes or more, a vector 4 + count, a string 5 + length), so every real
    /// message passes; sharing, which no Arrow writer does, can only make Arrow's walk longer than the message, and it is
    /// capped at twice. Arrow's reader does a constant amount of work and allocation per unit, so one message costs it
    /// time and memory linear in the metadata length.</item>
    /// </list>
    /// No allocation: the walk is recursion over a struct.
    /// </remarks>
    internal static class IpcMessageVerifier
    {
        internal const int MaxDepth = 128;
        internal const int WorkPerByte = 2;

        // Union MessageHeader: NONE, Schema, DictionaryBatch, RecordBatch, Tensor, SparseTensor. Union Type: IpcTypeRules.
        private const int LastHeaderType = 5;

        // Field indexes of Message.fbs and Schema.fbs (IpcMessageParser has the Message's, RecordBatch's and DictionaryBatch's).
        private const int SchemaEndianness = 0;
        private const int SchemaFields = 1;
        private const int SchemaCustomMetadata = 2;
        private const int SchemaFeatures = 3;
        private const int FieldName = 0;
        private const int FieldNullable = 1;
        private const int FieldTypeType = 2;
        private const int FieldType = 3;
        private const int FieldDictionary = 4;
        private const int FieldChildren = 5;
        private const int FieldCustomMetadata = 6;
        private const int KeyValueKey = 0;
        private const int KeyValueValue = 1;
        private const int DictionaryEncodingId = 0;
        private const int DictionaryEncodingIndexType = 1;
        private const int DictionaryEncodingIsOrdered = 2;
        private const int DictionaryEncodingKind = 3;

        /// <summary>Throws an <see cref="System.IO.InvalidDataException"/> naming the field and its offset at the first defect.</summary>
        public static void Verify(FlatReader reader) => Verify(reader, out _);

        /// <summary>
        /// Verifies as <see cref="Verify(FlatReader)"/> does and returns where the walk found the tables, fields and
        /// vectors <see cref="IpcMessageParser"/> needs, so that they are followed once (a second walk over them is a
        /// measurable share of a small batch's read). Values are not read: only placed.
        /// </summary>
        public static void Verify(FlatReader reader, out IpcMessage found)
        {
            var walk = new Walk(reader);
            FlatTable root = walk.Root();
            int headerType = walk.UnionType(root, IpcMessageParser.MessageHeaderType, LastHeaderType, "Message.header_type");
            reader.Field(root, IpcMessageParser.MessageVersion, 2, "Message.version");
            int bodyLength = reader.Field(root, IpcMessageParser.MessageBodyLength, 8, "Message.bodyLength");
            bool customMetadata = walk.KeyValues(root, IpcMessageParser.MessageCustomMetadata, 1, "Message.custom_metadata");
            FlatTable header = headerType == 0 ? default : walk.SubTable(root, IpcMessageParser.MessageHeader, 1, "Message.header");
            if (header.Exists)
            {
                switch (headerType)
                {
                    case IpcMessageParser.HeaderSchema:
                        walk.Schema(header, 2);
                        break;
                    case IpcMessageParser.HeaderDictionaryBatch:
                        walk.Found.Dictionary = header;
                        walk.DictionaryBatch(header, 2);
                        break;
                    case IpcMessageParser.HeaderRecordBatch:
                        walk.RecordBatch(header, 2);
                        break;
                    default:
                        // Tensor and SparseTensor: Arrow .NET does not read them (it refuses the message), so only the table is placed.
                        break;
                }
            }
            found = walk.Found;
            found.Root = root;
            found.HeaderType = headerType;
            found.BodyLengthField = bodyLength;
            found.CustomMetadata = customMetadata;
        }

        private struct Walk
        {
            private readonly FlatReader _reader;
            private long _work;

            /// <summary>The batch (with its BodyCompression and vectors) and the dictionary batch, as the walk placed them.</summary>
            public IpcMessage Found;

            public Walk(FlatReader reader)
            {
                _reader = reader;
                _work = (long)WorkPerByte * reader.Length;
            }

            public FlatTable Root()
            {
                Charge(0, 1, "Message");
                return _reader.Root("Message");
            }

            public FlatTable SubTable(FlatTable table, int index, int depth, string what)
            {
                int at = _reader.Field(table, index, 4, what);
                if (at < 0)
                    return default;
                Charge(at, 1, what);
                if (depth > MaxDepth)
                    Fail(at, $"{what}: tables nest deeper than {MaxDepth}");
                // The field is placed already: follow it (as FlatReader.SubTable would after placing it again).
                return _reader.TableAt(at, what);
            }

            private FlatTable TableAt(int position, int depth, string what)
            {
                Charge(position, 1, what);
                if (depth > MaxDepth)
                    Fail(position, $"{what}: tables nest deeper than {MaxDepth}");
                return _reader.TableAt(position, what);
            }

            private (int Position, int Count) Vector(FlatTable table, int index, int elementSize, string what)
            {
                (int position, int count) = _reader.Vector(table, index, elementSize, what);
                if (position > 0)
                    Charge(position - 4, 1L + count, what);
                return (position, count);
            }

            private void String(FlatTable table, int index, string what)
            {
                int at = _reader.Field(table, index, 4, what);
                if (at < 0)
                    return;
                int length = _reader.StringAt(at, what);
                Charge(at, 1L + (length >> 3), what);
            }

            /// <summary>A union's type field: a value the format defines, or an error at the field.</summary>
            public int UnionType(FlatTable table, int index, int last, string what)
            {
                int at = _reader.Field(table, index, 1, what);
                int type = at < 0 ? 0 : _reader.ReadUInt8(at);
                if (type > last)
                    Fail(at, $"{what}: union type {type} is not one the format defines (0 to {last})");
                return type;
            }

            /// <summary>Walks a vector of KeyValue tables; true when the field is present.</summary>
            public bool KeyValues(FlatTable table, int index, int depth, string what)
            {
                (int position, int count) = Vector(table, index, 4, what);
                for (int i = 0; i < count; i++)
                {
                    FlatTable pair = TableAt(position + (4 * i), depth + 1, "KeyValue");
                    String(pair, KeyValueKey, "KeyValue.key");
                    String(pair, KeyValueValue, "KeyValue.value");
                }
                return position > 0;
            }

            public void Schema(FlatTable schema, int depth)
            {
                _reader.Field(schema, SchemaEndianness, 2, "Schema.endianness");
                Fields(schema, SchemaFields, depth, "Schema.fields");
                KeyValues(schema, SchemaCustomMetadata, depth, "Schema.custom_metadata");
                Vector(schema, SchemaFeatures, 8, "Schema.features");
            }

            private void Fields(FlatTable table, int index, int depth, string what)
            {
                (int position, int count) = Vector(table, index, 4, what);
                for (int i = 0; i < count; i++)
                    Field(TableAt(position + (4 * i), depth + 1, "Field"), depth + 1);
            }

            private void Field(FlatTable field, int depth)
            {
                String(field, FieldName, "Field.name");
                _reader.Field(field, FieldNullable, 1, "Field.nullable");
                int type = UnionType(field, FieldTypeType, IpcTypeRules.LastType, "Field.type_type");
                FlatTable typeTable = SubTable(field, FieldType, depth + 1, "Field.type");
                if (typeTable.Exists)
                    Type(typeTable, type);
                FlatTable encoding = SubTable(field, FieldDictionary, depth + 1, "Field.dictionary");
                if (encoding.Exists)
                {
                    _reader.Field(encoding, DictionaryEncodingId, 8, "DictionaryEncoding.id");
                    _reader.Field(encoding, DictionaryEncodingIsOrdered, 1, "DictionaryEncoding.isOrdered");
                    _reader.Field(encoding, DictionaryEncodingKind, 2, "DictionaryEncoding.dictionaryKind");
                    FlatTable indexType = SubTable(encoding, DictionaryEncodingIndexType, depth + 2, "DictionaryEncoding.indexType");
                    if (indexType.Exists)
                    {
                        _reader.Field(indexType, 0, 4, "Int.bitWidth");
                        _reader.Field(indexType, 1, 1, "Int.is_signed");
                    }
                }
                Fields(field, FieldChildren, depth, "Field.children");
                KeyValues(field, FieldCustomMetadata, depth, "Field.custom_metadata");
            }

            // The fields of each type table (Schema.fbs); the types without fields (Null, Binary, Utf8, Bool, lists,
            // Struct_, views, RunEndEncoded) need only their table placed.
            private void Type(FlatTable table, int type)
            {
                switch (type)
                {
                    case IpcTypeRules.Int: // Int { bitWidth: int; is_signed: bool }
                        _reader.Field(table, 0, 4, "Int.bitWidth");
                        _reader.Field(table, 1, 1, "Int.is_signed");
                        break;
                    case IpcTypeRules.FloatingPoint: // FloatingPoint { precision: short }
                    case IpcTypeRules.Date: // Date { unit: short }
                    case IpcTypeRules.Interval: // Interval { unit: short }
                    case IpcTypeRules.Duration: // Duration { unit: short }
                        _reader.Field(table, 0, 2, "Field.type unit or precision");
                        break;
                    case IpcTypeRules.Decimal: // Decimal { precision: int; scale: int; bitWidth: int }
                        _reader.Field(table, 0, 4, "Decimal.precision");
                        _reader.Field(table, 1, 4, "Decimal.scale");
                        _reader.Field(table, 2, 4, "Decimal.bitWidth");
                        break;
                    case IpcTypeRules.Time: // Time { unit: short; bitWidth: int }
                        _reader.Field(table, 0, 2, "Time.unit");
                        _reader.Field(table, 1, 4, "Time.bitWidth");
                        break;
                    case IpcTypeRules.Timestamp: // Timestamp { unit: short; timezone: string }
                        _reader.Field(table, 0, 2, "Timestamp.unit");
                        String(table, 1, "Timestamp.timezone");
                        break;
                    case IpcTypeRules.Union: // Union { mode: short; typeIds: [int] }
                        _reader.Field(table, 0, 2, "Union.mode");
                        Vector(table, 1, 4, "Union.typeIds");
                        break;
                    case IpcTypeRules.FixedSizeBinary: // FixedSizeBinary { byteWidth: int }
                        _reader.Field(table, 0, 4, "FixedSizeBinary.byteWidth");
                        break;
                    case IpcTypeRules.FixedSizeList: // FixedSizeList { listSize: int }
                        _reader.Field(table, 0, 4, "FixedSizeList.listSize");
                        break;
                    case IpcTypeRules.Map: // Map { keysSorted: bool }
                        _reader.Field(table, 0, 1, "Map.keysSorted");
                        break;
                }
            }

            public void DictionaryBatch(FlatTable dictionary, int depth)
            {
                _reader.Field(dictionary, IpcMessageParser.DictionaryBatchId, 8, "DictionaryBatch.id");
                _reader.Field(dictionary, IpcMessageParser.DictionaryBatchIsDelta, 1, "DictionaryBatch.isDelta");
                FlatTable data = SubTable(dictionary, IpcMessageParser.DictionaryBatchData, depth + 1, "DictionaryBatch.data");
                if (data.Exists)
                    RecordBatch(data, depth + 1);
            }

            public void RecordBatch(FlatTable batch, int depth)
            {
                // A message has one RecordBatch (its header, or its DictionaryBatch's data), so what is found here is it.
                Found.Batch = batch;
                _reader.Field(batch, IpcMessageParser.RecordBatchLength, 8, "RecordBatch.length");
                (Found.Nodes, Found.NodeCount) = Vector(batch, IpcMessageParser.RecordBatchNodes, 16, "RecordBatch.nodes");
                (Found.Buffers, Found.BufferCount) = Vector(batch, IpcMessageParser.RecordBatchBuffers, IpcMessageParser.BufferStructSize, "RecordBatch.buffers");
                (Found.Variadic, Found.VariadicCount) = Vector(batch, IpcMessageParser.RecordBatchVariadicCounts, 8, "RecordBatch.variadicBufferCounts");
                FlatTable compression = SubTable(batch, IpcMessageParser.RecordBatchCompression, depth + 1, "RecordBatch.compression");
                Found.Compressed = compression.Exists;
                if (compression.Exists)
                {
                    int codec = _reader.Field(compression, IpcMessageParser.CompressionCodec, 1, "BodyCompression.codec");
                    int method = _reader.Field(compression, IpcMessageParser.CompressionMethod, 1, "BodyCompression.method");
                    // A value the format does not define would pass through to Arrow's reader, which throws NotImplementedException.
                    if (codec >= 0 && _reader.ReadUInt8(codec) > IpcMessageParser.CodecZstd)
                        Fail(codec, $"BodyCompression.codec is {_reader.ReadUInt8(codec)}, which the format does not define (LZ4_FRAME 0, ZSTD 1)");
                    if (method >= 0 && _reader.ReadUInt8(method) != IpcMessageParser.MethodBuffer)
                        Fail(method, $"BodyCompression.method is {_reader.ReadUInt8(method)}, which the format does not define (BUFFER 0)");
                    Found.Lz4 = codec < 0 || _reader.ReadUInt8(codec) == IpcMessageParser.CodecLz4Frame;
                }
            }

            private void Charge(int position, long units, string what)
            {
                _work -= units;
                if (_work < 0)
                    Fail(position, $"{what}: the message's tables, vectors and strings, as a reader walks them, exceed {WorkPerByte} units per metadata byte (tables shared by many parents)");
            }

            private readonly void Fail(int position, string what) =>
                IpcErrors.Throw(_reader.InputOffset(position), $"message metadata, {what}");
        }
    }
}
