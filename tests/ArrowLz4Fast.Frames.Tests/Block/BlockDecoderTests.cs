using System;
using System.Collections.Generic;
using ArrowLz4Fast.Tests.Support;
using ArrowLz4Fast.Frames;
using K4os.Compression.LZ4;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// The ported liblz4 block decoder on every block real producers wrote: the same bytes as K4os, and the same
    /// result in exactly the block's decoded length as in a block maximum — so valid data never needs the frame
    /// decoder's second, scratch-buffer attempt for the last block of an exact-length Arrow buffer.
    /// </summary>
    public class BlockDecoderTests
    {
        [Theory]
        [InlineData("ipc/pyarrow/")]
        [InlineData("ipc/rust/")]
        [InlineData("ipc/java/")]
        public void Every_real_block_decodes_as_K4os_decodes_it_and_fits_its_exact_length(string source)
        {
            BlockAgreement.AssertEveryBlockDecodesAsK4os(CorpusBuffers.Frames(source), source);
        }
    }
}
