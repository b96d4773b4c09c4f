using System;
using System.Collections.Generic;

namespace ArrowLz4Fast
{
    /// <summary>
    /// Which top-level fields of an Arrow IPC stream or file <see cref="IpcDecompressingStream"/> presents (set it on
    /// <see cref="Lz4FastOptions.Projection"/>): the reader then sees a schema of only those fields, record batches of
    /// only their field nodes and buffers, and only the dictionary batches they use. The other fields' buffers are
    /// never decompressed, and from a seekable input never read.
    /// </summary>
    /// <remarks>
    /// The fields come in schema order, whatever order they are named in (as Arrow C++'s <c>included_fields</c> and
    /// arrow-rs's projections). A name or index the schema does not have is an <see cref="System.IO.InvalidDataException"/>
    /// when the schema is read; a name two fields of the schema share is a <see cref="NotSupportedException"/> then
    /// (select such a field by index).
    /// </remarks>
    public sealed class IpcProjection
    {
        private readonly string[]? _names;
        private readonly int[]? _indices;

        private IpcProjection(string[]? names, int[]? indices)
        {
            _names = names;
            _indices = indices;
        }

        /// <summary>The selected fields' names, or <see langword="null"/> when they are selected by index.</summary>
        public IReadOnlyList<string>? Names => _names;

        /// <summary>The selected fields' indices in the schema, or <see langword="null"/> when they are selected by name.</summary>
        public IReadOnlyList<int>? Indices => _indices;

        /// <summary>Selects the top-level fields with these names.</summary>
        /// <param name="names">The fields' names, each once; matched exactly (ordinal).</param>
        /// <returns>The projection.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="names"/> or one of its names is <see langword="null"/>.</exception>
        /// <exception cref="ArgumentException">A name is given twice.</exception>
        public static IpcProjection ByName(params string[] names) => ByName((IEnumerable<string>)names);

        /// <inheritdoc cref="ByName(string[])"/>
        public static IpcProjection ByName(IEnumerable<string> names)
        {
            if (names is null) throw new ArgumentNullException(nameof(names));
            var list = new List<string>();
            var seen = new HashSet<string>(StringComparer.Ordinal);
            foreach (string name in names)
            {
                if (name is null) throw new ArgumentNullException(nameof(names), "A field name is null.");
                if (!seen.Add(name)) throw new ArgumentException($"The field '{name}' is selected twice.", nameof(names));
                list.Add(name);
            }
            return new IpcProjection(list.ToArray(), null);
        }

        /// <summary>Selects the top-level fields at these indices of the schema (0 is its first field).</summary>
        /// <param name="indices">The fields' indices, each once.</param>
        /// <returns>The projection.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="indices"/> is <see langword="null"/>.</exception>
        /// <exception cref="ArgumentOutOfRangeException">An index is negative.</exception>
        /// <exception cref="ArgumentException">An index is given twice.</exception>
        public static IpcProjection ByIndex(params int[] indices) => ByIndex((IEnumerable<int>)indices);

        /// <inheritdoc cref="ByIndex(int[])"/>
        public static IpcProjection ByIndex(IEnumerable<int> indices)
        {
            if (indices is null) throw new ArgumentNullException(nameof(indices));
            var list = new List<int>();
            var seen = new HashSet<int>();
            foreach (int index in indices)
            {
                if (index < 0) throw new ArgumentOutOfRangeException(nameof(indices), index, "A field index is negative.");
                if (!seen.Add(index)) throw new ArgumentException($"The field index {index} is selected twice.", nameof(indices));
                list.Add(index);
            }
            return new IpcProjection(null, list.ToArray());
        }
    }
}
