namespace ArrowLz4Fast.Ipc
{
    /// <summary>
    /// The one list of what a schema may say (format/Schema.fbs) and Arrow .NET reads: the Type union, each type's
    /// accepted parameters and defaults, the children and buffers each has. <see cref="IpcSchemaVerifier"/> holds a schema
    /// to it and lays its batches out by it (for the wrapper, <see cref="Lz4FramedArrow"/> and the Flight interceptors),
    /// <see cref="IpcSchemaColumns"/> and <see cref="IpcMessageVerifier"/> name the types by it, and the inspect tool
    /// verifies schemas with it.
    /// </summary>
    internal static class IpcTypeRules
    {
        // Union Type of Schema.fbs.
        public const int None = 0;
        public const int Null = 1;
        public const int Int = 2;
        public const int FloatingPoint = 3;
        public const int Binary = 4;
        public const int Utf8 = 5;
        public const int Bool = 6;
        public const int Decimal = 7;
        public const int Date = 8;
        public const int Time = 9;
        public const int Timestamp = 10;
        public const int Interval = 11;
        public const int List = 12;
        public const int Struct = 13;
        public const int Union = 14;
        public const int FixedSizeBinary = 15;
        public const int FixedSizeList = 16;
        public const int Map = 17;
        public const int Duration = 18;
        public const int LargeBinary = 19;
        public const int LargeUtf8 = 20;
        public const int LargeList = 21;
        public const int RunEndEncoded = 22;
        public const int BinaryView = 23;
        public const int Utf8View = 24;
        public const int ListView = 25;
        public const int LargeListView = 26;
        public const int LastType = LargeListView;

        private static readonly string[] s_names =
        {
            "NONE", "Null", "Int", "FloatingPoint", "Binary", "Utf8", "Bool", "Decimal", "Date", "Time", "Timestamp",
            "Interval", "List", "Struct_", "Union", "FixedSizeBinary", "FixedSizeList", "Map", "Duration", "LargeBinary",
            "LargeUtf8", "LargeList", "RunEndEncoded", "BinaryView", "Utf8View", "ListView", "LargeListView",
        };

        /// <summary>The type's name in Schema.fbs.</summary>
        public static string Name(int type) => type >= 0 && type <= LastType ? s_names[type] : $"type {type}";

        /// <summary>Int.bitWidth, also of a dictionary's index type: what Arrow .NET maps to an integer type.</summary>
        public static bool IsIntBitWidth(int bitWidth) => bitWidth == 8 || bitWidth == 16 || bitWidth == 32 || bitWidth == 64;

        public const string IntBitWidths = "8, 16, 32 or 64";

        /// <summary>Run ends are Int16, Int32 or Int64 (signed).</summary>
        public static bool IsRunEndBitWidth(int bitWidth) => bitWidth == 16 || bitWidth == 32 || bitWidth == 64;

        /// <summary>Precision: HALF, SINGLE, DOUBLE; absent is HALF.</summary>
        public const int LastPrecision = 2;

        /// <summary>Decimal.bitWidth (absent: 128) and the most digits it holds; 0 for a width Arrow does not define.</summary>
        public static int DecimalMaxPrecision(int bitWidth) => bitWidth switch
        {
            32 => 9,
            64 => 18,
            128 => 38,
            256 => 76,
            _ => 0,
        };

        public const int DefaultDecimalBitWidth = 128;

        /// <summary>DateUnit: DAY, MILLISECOND; absent is MILLISECOND.</summary>
        public const int LastDateUnit = 1;

        public const int DefaultDateUnit = 1;

        /// <summary>TimeUnit: SECOND, MILLISECOND, MICROSECOND, NANOSECOND. Absent: SECOND for Timestamp, MILLISECOND for Time and Duration.</summary>
        public const int LastTimeUnit = 3;

        public const int DefaultTimeUnit = 1;

        /// <summary>Time.bitWidth (absent: 32) the unit needs: 32 for seconds and milliseconds, 64 for micro- and nanoseconds.</summary>
        public static int TimeBitWidth(int unit) => unit <= 1 ? 32 : 64;

        public const int DefaultTimeBitWidth = 32;

        /// <summary>IntervalUnit: YEAR_MONTH, DAY_TIME, MONTH_DAY_NANO; absent is YEAR_MONTH.</summary>
        public const int LastIntervalUnit = 2;

        /// <summary>UnionMode: Sparse, Dense; absent is Sparse.</summary>
        public const int LastUnionMode = 1;

        /// <summary>Union type ids lie in 0 to 127 (an int8 per row names the child).</summary>
        public const int MaxUnionTypeId = 127;

        /// <summary>The children a type needs; -1 when any number (Struct_ and Union need one or more in Arrow .NET, checked apart).</summary>
        public static int Children(int type) => type switch
        {
            List or LargeList or ListView or LargeListView or FixedSizeList or Map => 1,
            RunEndEncoded => 2,
            _ => -1,
        };

        /// <summary>Types whose children are nodes of a batch after the field's own (Arrow .NET's NestedType).</summary>
        public static bool IsNested(int type) => type switch
        {
            List or Struct or Union or FixedSizeList or Map or LargeList or RunEndEncoded or ListView or LargeListView => true,
            _ => false,
        };

        /// <summary>
        /// The buffers a field of the type owns in a batch, validity first (the columnar format's buffer layouts), for
        /// the types whose layout the wrapper checks; -1 for the others (Null, Union, RunEndEncoded, views): Arrow's
        /// reader judges those. A checked type's children (<see cref="IsNested"/>) follow it with their own buffers.
        /// </summary>
        public static int Buffers(int type) => type switch
        {
            Int or FloatingPoint or Bool or Decimal or Date or Time or Timestamp or Interval or FixedSizeBinary or Duration => 2,
            Binary or Utf8 or LargeBinary or LargeUtf8 => 3,
            List or Map or LargeList => 2,
            Struct or FixedSizeList => 1,
            _ => -1,
        };

        /// <summary>
        /// Types Arrow .NET builds as one shared instance per parameter set, the only value types its dictionary memo
        /// recognises as the same when two fields name one dictionary id (it compares the instances).
        /// </summary>
        public static bool SharedInstance(int type) => type switch
        {
            Null or Int or FloatingPoint or Binary or Utf8 or Bool or Date or Time or Interval or Duration
                or LargeBinary or LargeUtf8 or BinaryView or Utf8View => true,
            _ => false,
        };
    }
}
