/** A checkpoint's parts (server/storage/disk/checkpoint.ts Parts) joined, as the file holds them; null stays null. */
export function joined(parts: readonly Buffer[] | null): Buffer | null {
  return parts === null ? null : Buffer.concat(parts);
}

/** What an index's serializeRange needs: its rows for lo <= seq < hi, given the seqs held live there. */
interface RangeSaver {
  serializeRange(lo: number, hi: number, expected: readonly number[]): Promise<readonly Buffer[] | null>;
}

/**
 * Each of `ranges` of `index` saved as a checkpoint holds it, `live` being every live seq
 * (any order): the parts a restore reads back, range by range.
 */
export function savedRanges(index: RangeSaver, ranges: readonly (readonly [number, number])[], live: readonly number[]): Promise<Buffer[]> {
  const ascending = [...live].sort((a, b) => a - b);
  return Promise.all(
    ranges.map(
      async ([lo, hi]) =>
        joined(
          await index.serializeRange(
            lo,
            hi,
            ascending.filter((seq) => seq >= lo && seq < hi),
          ),
        )!,
    ),
  );
}
