/**
 * What the compact indexes (message-index.ts, recipient-index.ts) share: rows in typed arrays,
 * one slot per record in sequence order.
 */

type Column = Float64Array | Uint32Array | Uint16Array | Uint8Array;

/** The first of the first `used` slots whose sequence number is `seq` or more (binary search). */
export function lowerBound(seqs: ArrayLike<number>, used: number, seq: number): number {
  let lo = 0;
  let hi = used;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid]! < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A column of `capacity` slots of the same kind, holding the first `used` of `from` (grown, or shrunk to fit). */
export function resized<A extends Column>(from: A, used: number, capacity: number): A {
  const next = new (from.constructor as new (length: number) => A)(capacity);
  next.set(from.subarray(0, Math.min(used, capacity)));
  return next;
}

/**
 * Moves the rows `keep` accepts to the front of every column, in order (a compaction of the
 * index after many removals); returns how many there are.
 */
export function keepRows(columns: readonly Column[], used: number, keep: (slot: number) => boolean): number {
  let to = 0;
  for (let from = 0; from < used; from++) {
    if (!keep(from)) continue;
    if (to !== from) for (const column of columns) column[to] = column[from]!;
    to++;
  }
  return to;
}
