namespace ArrowLz4Fast.Inspect
{
    /// <summary>What --verify found for one LZ4 buffer; every outcome but Identical and Declined makes it corrupt.</summary>
    internal enum VerifyOutcome
    {
        /// <summary>Both decoders accept it and write the same bytes, of the declared length.</summary>
        Identical,

        /// <summary>A dictionary-ID frame ArrowLz4Fast declines (NotSupportedException): unsupported, not corrupt.</summary>
        Declined,

        /// <summary>ArrowLz4Fast rejects it; the official decoder accepts it (it verifies no checksums, for one).</summary>
        RejectedByArrowLz4FastAlone,

        /// <summary>The official decoder rejects it; ArrowLz4Fast accepts it.</summary>
        RejectedByOfficialAlone,

        /// <summary>Both decoders reject it.</summary>
        RejectedByBoth,

        /// <summary>Both accept it, but write different lengths or different bytes.</summary>
        DecodedDifferently,

        /// <summary>Both decode the same bytes, but not the length the buffer declares: Arrow's reader rejects it.</summary>
        WrongLength,
    }
}
