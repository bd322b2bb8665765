import type { ImageSection } from '../disk/image-file.ts';
import type { MessageRecord } from '../records.ts';
/** Bytes of a chunk (a text longer than that gets a chunk of its own size). */
const CHUNK_BYTES = 1 << 20;
/** A place is `chunk * ENTRIES + entry`: more entries than a chunk can hold (each is at least a byte). */
const ENTRIES = 2 ** 21;
/** Queries of one chunk's entries a matcher answers one at a time before it reads the rest of the chunk at once. */
const DIRECT_QUERIES = 32;
/** The field separator of a capture's search text (FIELD_MARK, below), as a byte. */
const FIELD_BYTE = 0x02;

interface Chunk {
  readonly id: number;
  readonly bytes: Buffer;
  used: number;
  /** Where each entry starts; it ends where the next starts, the last at `used`. */
  starts: Uint32Array;
  entries: number;
  live: number;
}

/**
 * The captures' search texts (message-index.ts searchText), UTF-8, appended to chunks of a
 * mebibyte: no JS string or object per capture, so a million captures are a few hundred buffers
 * the garbage collector never walks, start-up copies the checkpoint's bytes in without decoding
 * them, and a search runs Node's native substring search over a whole chunk at a time
 * (Buffer#indexOf, linear in the chunk; test/storage/search-texts.test.ts measures its growth).
 *
 * Entries never change. A text that changes is appended again; the old entry is dead. A chunk
 * whose entries are all dead is dropped; when dead bytes outweigh the live ones, the owner
 * rewrites the live texts into new chunks (rewrite). Chunk ids are never reused, so what a
 * matcher learnt of a chunk stays true for as long as the chunk exists.
 *
 * A lone UTF-16 surrogate (never in well-formed text) is kept as U+FFFD, in texts and queries
 * alike: a search for U+FFFD also finds it.
 */
export class SearchTexts {
  private chunks = new Map<number, Chunk>();
  private last: Chunk | null = null;
  private nextId = 0;
  private liveBytes = 0;
  private deadBytes = 0;

  /** Appends a text (or `source[from, to)`); returns its place. */
  add(text: string | Uint8Array, from = 0, to = typeof text === 'string' ? 0 : text.length): number {
    const length = typeof text === 'string' ? Buffer.byteLength(text) : to - from;
    const chunk = this.room(length);
    const entry = chunk.entries++;
    if (entry === chunk.starts.length) {
      const starts = new Uint32Array(chunk.starts.length * 2);
      starts.set(chunk.starts);
      chunk.starts = starts;
    }
    chunk.starts[entry] = chunk.used;
    if (typeof text === 'string') chunk.bytes.write(text, chunk.used, 'utf8');
    else if (Buffer.isBuffer(text)) text.copy(chunk.bytes, chunk.used, from, to);
    else chunk.bytes.set(text.subarray(from, to), chunk.used);
    chunk.used += length;
    chunk.live++;
    this.liveBytes += length;
    return chunk.id * ENTRIES + entry;
  }

  /**
   * Appends `count` texts lying end to end in `source` from `from`, the i-th `lengths[i]` bytes
   * long, writing the i-th one's place to `places[at + i]`: as add, with one copy per chunk they
   * fill rather than one per text (start-up restores a checkpoint's texts this way).
   */
  addAll(source: Buffer, from: number, lengths: Uint32Array, count: number, places: Float64Array, at: number): void {
    for (let i = 0; i < count; ) {
      const chunk = this.room(lengths[i]!);
      let bytes = 0;
      let end = i;
      while (end < count && chunk.entries + (end - i) < ENTRIES && chunk.used + bytes + lengths[end]! <= chunk.bytes.length) bytes += lengths[end++]!;
      if (chunk.entries + (end - i) > chunk.starts.length) {
        const starts = new Uint32Array(Math.max(chunk.starts.length * 2, chunk.entries + (end - i)));
        starts.set(chunk.starts);
        chunk.starts = starts;
      }
      source.copy(chunk.bytes, chunk.used, from, from + bytes);
      chunk.live += end - i;
      for (; i < end; i++) {
        places[at + i] = chunk.id * ENTRIES + chunk.entries;
        chunk.starts[chunk.entries++] = chunk.used;
        chunk.used += lengths[i]!;
      }
      from += bytes;
      this.liveBytes += bytes;
    }
  }

  /** The text at `place` is no longer needed. */
  remove(place: number): void {
    const chunk = this.chunkOf(place);
    const entry = place % ENTRIES;
    const length = entryEnd(chunk, entry) - chunk.starts[entry]!;
    this.liveBytes -= length;
    if (--chunk.live === 0 && chunk !== this.last) {
      this.chunks.delete(chunk.id);
      this.deadBytes -= chunk.used - length;
    } else this.deadBytes += length;
  }

  /** Whether dead bytes outweigh the live ones enough that the owner should rewrite (see rewrite). */
  get wasteful(): boolean {
    return this.deadBytes > CHUNK_BYTES && this.deadBytes > this.liveBytes;
  }

  /** The text's bytes (a view into the chunk: valid until the text is removed or rewritten). */
  bytes(place: number): Buffer {
    const chunk = this.chunkOf(place);
    const entry = place % ENTRIES;
    return chunk.bytes.subarray(chunk.starts[entry]!, entryEnd(chunk, entry));
  }

  /**
   * Where the text at `place` lies, written into `into`: its chunk's bytes and its start and end
   * there (what `bytes` returns a view of, with no object made: a checkpoint asks for thousands).
   */
  locate(place: number, into: { memory: Buffer; start: number; end: number }): void {
    const chunk = this.chunkOf(place);
    const entry = place % ENTRIES;
    into.memory = chunk.bytes;
    into.start = chunk.starts[entry]!;
    into.end = entryEnd(chunk, entry);
  }

  /** Whether the text at `place` begins with `prefix`. */
  startsWith(place: number, prefix: Uint8Array): boolean {
    const chunk = this.chunkOf(place);
    const entry = place % ENTRIES;
    const start = chunk.starts[entry]!;
    if (start + prefix.length > entryEnd(chunk, entry)) return false;
    return chunk.bytes.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0;
  }

  /**
   * Copies the texts at the first `count` of `places` that `live` accepts into new chunks, in
   * that order, writing each one's new place over the old, and drops the old chunks.
   */
  rewrite(places: Float64Array, count: number, live: (index: number) => boolean): void {
    const old = this.chunks;
    this.chunks = new Map();
    this.last = null;
    this.liveBytes = 0;
    this.deadBytes = 0;
    for (let i = 0; i < count; i++) {
      if (!live(i)) continue;
      const place = places[i]!;
      const chunk = old.get(Math.floor(place / ENTRIES))!;
      const entry = place % ENTRIES;
      places[i] = this.add(chunk.bytes, chunk.starts[entry]!, entryEnd(chunk, entry));
    }
  }

  clear(): void {
    this.chunks.clear();
    this.last = null;
    this.liveBytes = 0;
    this.deadBytes = 0;
  }

  /** Its state for a start-up image (disk/image-file.ts): each chunk's bytes and starts as far as used. */
  image(out: ImageSection): Record<string, unknown> {
    const chunks: number[][] = [];
    for (const chunk of this.chunks.values()) {
      chunks.push([chunk.id, chunk.used, chunk.entries, chunk.live]);
      out.put(chunk.bytes, chunk.used, chunk.bytes.length);
      out.put(chunk.starts, chunk.entries, chunk.starts.length);
    }
    return { chunks, last: this.last?.id ?? -1, nextId: this.nextId, liveBytes: this.liveBytes, deadBytes: this.deadBytes };
  }

  /** What `image` saved, on texts that hold nothing yet. */
  adopt(from: ImageSection, saved: Record<string, unknown>): void {
    const { chunks, last, nextId, liveBytes, deadBytes } = saved as { chunks: number[][]; last: number; nextId: number; liveBytes: number; deadBytes: number };
    for (const [id, used, entries, live] of chunks) {
      const chunk: Chunk = { id: id!, bytes: from.bytes(), used: used!, starts: from.take(Uint32Array), entries: entries!, live: live! };
      this.chunks.set(chunk.id, chunk);
    }
    this.last = this.chunks.get(last) ?? null;
    this.nextId = nextId;
    this.liveBytes = liveBytes;
    this.deadBytes = deadBytes;
  }

  /**
   * A test of whether the text at a place holds every one of `needles` (UTF-8 bytes), and
   * `inSubject` (if given) within its subject field (between its first two FIELD_BYTEs). A
   * matcher asked about many entries of one chunk reads the whole chunk once with the native
   * search and remembers the answers; one asked about a few (a waiter testing each new capture)
   * looks in those entries alone.
   */
  matcher(needles: readonly Uint8Array[], inSubject?: Uint8Array): (place: number) => boolean {
    // Each word with the share of texts it was found in (0 until it has read a chunk on its own).
    const words = [...new Map(needles.filter((n) => n.length > 0).map((n) => [Buffer.from(n).toString('latin1'), n])).values()].map((bytes) => ({
      bytes,
      share: 0,
    }));
    const subject = inSubject !== undefined && inSubject.length > 0 ? inSubject : undefined;
    const wanted = words.length + (subject ? 1 : 0);
    if (wanted === 0) return () => true;
    const known = new Map<number, { scanned: number; found: Uint16Array; direct: number }>();
    // The chunk asked about last (a scan asks about one chunk's texts in a row).
    let lastId = -1;
    let last: { scanned: number; found: Uint16Array; direct: number } | undefined;
    return (place) => {
      const id = Math.floor(place / ENTRIES);
      const entry = place - id * ENTRIES;
      if (id === lastId && entry < last!.scanned) return last!.found[entry] === wanted;
      const chunk = this.chunks.get(id);
      if (chunk === undefined) return false;
      let seen = known.get(id);
      if (seen === undefined) {
        seen = { scanned: 0, found: new Uint16Array(0), direct: 0 };
        known.set(id, seen);
      }
      lastId = id;
      last = seen;
      if (entry < seen.scanned) return seen.found[entry] === wanted;
      if (++seen.direct <= DIRECT_QUERIES) return entryHas(chunk, entry, needlesOf(words), subject);
      // Many questions about this chunk: read the rest of it at once.
      const found = new Uint16Array(chunk.entries);
      found.set(seen.found.subarray(0, seen.scanned));
      // The rarest word so far (at first the longest: the longer the needle, the further the
      // search skips) reads the chunk; each other word reads it too while many texts are left,
      // or else looks in those alone.
      words.sort((a, b) => a.share - b.share || b.bytes.length - a.bytes.length);
      const texts = chunk.entries - seen.scanned;
      let left = texts;
      for (let k = 0; k < words.length; k++) {
        const word = words[k]!;
        if (k > 0 && left * 8 < texts) {
          for (let e = seen.scanned; e < chunk.entries; e++)
            if (found[e] === k && chunk.bytes.subarray(chunk.starts[e]!, entryEnd(chunk, e)).indexOf(word.bytes) >= 0) found[e]!++;
        } else {
          scan(chunk, seen.scanned, chunk.entries, word.bytes, false, found);
          left = 0;
          for (let e = seen.scanned; e < chunk.entries; e++) if (found[e] === k + 1) left++;
          if (k === 0) word.share = left / Math.max(1, texts);
          continue;
        }
        left = 0;
        for (let e = seen.scanned; e < chunk.entries; e++) if (found[e] === k + 1) left++;
      }
      if (subject) scan(chunk, seen.scanned, chunk.entries, subject, true, found);
      seen.found = found;
      seen.scanned = chunk.entries;
      seen.direct = 0;
      return found[entry] === wanted;
    };
  }

  private chunkOf(place: number): Chunk {
    const chunk = this.chunks.get(Math.floor(place / ENTRIES));
    if (chunk === undefined) throw new Error(`no search text at ${place}`);
    return chunk;
  }

  /** The chunk a text of `length` bytes goes to: the last one, or a new one when it is full. */
  private room(length: number): Chunk {
    const last = this.last;
    if (last !== null && last.used + length <= last.bytes.length && last.entries < ENTRIES) return last;
    if (last !== null && last.live === 0) {
      this.chunks.delete(last.id);
      this.deadBytes -= last.used;
    }
    const chunk: Chunk = {
      id: this.nextId++,
      // Not zero-filled (a million captures fill some 230 of them at start-up): nothing reads
      // past `used` as text (a scan's hit beyond it ends the scan, scan below).
      bytes: Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length)),
      used: 0,
      starts: new Uint32Array(1024),
      entries: 0,
      live: 0,
    };
    this.chunks.set(chunk.id, chunk);
    this.last = chunk;
    return chunk;
  }
}

function needlesOf(words: readonly { bytes: Uint8Array }[]): Uint8Array[] {
  return words.map((word) => word.bytes);
}

function entryEnd(chunk: Chunk, entry: number): number {
  return entry + 1 < chunk.entries ? chunk.starts[entry + 1]! : chunk.used;
}

/** Where the entry's subject field lies: [start, end). */
function subjectOf(chunk: Chunk, entry: number): [number, number] {
  const end = entryEnd(chunk, entry);
  const first = chunk.bytes.indexOf(FIELD_BYTE, chunk.starts[entry]!);
  if (first < 0 || first >= end) return [end, end];
  const second = chunk.bytes.indexOf(FIELD_BYTE, first + 1);
  return [first + 1, second < 0 || second > end ? end : second];
}

/** Whether one entry holds every word (and the subject needle in its subject). */
function entryHas(chunk: Chunk, entry: number, words: readonly Uint8Array[], subject: Uint8Array | undefined): boolean {
  const text = chunk.bytes.subarray(chunk.starts[entry]!, entryEnd(chunk, entry));
  for (const word of words) if (text.indexOf(word) < 0) return false;
  if (subject === undefined) return true;
  const [start, end] = subjectOf(chunk, entry);
  return chunk.bytes.subarray(start, end).indexOf(subject) >= 0;
}

/**
 * Counts, in `found`, each entry in [from, to) that holds `needle` (in its subject field when
 * `subjectOnly`). Each native search starts past the entry the previous one found, so the chunk
 * is read once, plus the needle's length per entry found.
 */
function scan(chunk: Chunk, from: number, to: number, needle: Uint8Array, subjectOnly: boolean, found: Uint16Array): void {
  const { bytes, starts } = chunk;
  const stop = to < chunk.entries ? starts[to]! : chunk.used;
  let at = from < chunk.entries ? starts[from]! : stop;
  let entry = from;
  while (at < stop) {
    const hit = bytes.indexOf(needle, at);
    if (hit < 0 || hit + needle.length > stop) return;
    // Hits come in order: the entry holding each is found by walking on from the last.
    while (entry + 1 < to && starts[entry + 1]! <= hit) entry++;
    const end = entryEnd(chunk, entry);
    if (hit + needle.length <= end) {
      if (!subjectOnly) {
        found[entry]!++;
        at = end;
        continue;
      }
      const [start, last] = subjectOf(chunk, entry);
      if (hit < start) {
        at = start;
        continue;
      }
      if (hit + needle.length <= last) found[entry]!++;
      at = end;
      continue;
    }
    // Across two entries (the marks make this impossible for the queries built here): go on after it.
    at = hit + 1;
  }
}

/** Separators in the search text: before every address, and between the other fields. */
export const ADDRESS_MARK = '\u0001';
const FIELD_MARK = '\u0002';

/**
 * What search and the address filters look in, lowercased:
 * `\x01recipient\x01to...\x01cc...\x01bcc...\x01\x02subject\x02from\x02snippet and body text`,
 * each address once. The original recipient comes first, so "sent to" is a prefix test; any
 * address is `\x01address\x01`. The From is left out when `fromApart` (the index keeps it
 * interned beside the text: nearly every capture of a run has one of a few, and at a million
 * captures its bytes in every text were some 17 MB), and so is the sender id, always (the index's
 * sender column holds it); search looks in both there (message-index.ts textMatcher).
 */
export function searchText(record: MessageRecord, fromApart = false): string {
  // Each address once (the recipient is nearly always To as well): a filter asks whether an
  // address is there, not how often, and a million captures keep ~25 MB less.
  const addresses = [...new Set([record.recipient, ...record.to, ...record.cc, ...record.bcc].map((a) => unmarked(a.trim()).toLowerCase()))].join(ADDRESS_MARK);
  const fields = fromApart ? [record.subject, bodySearchText(record)] : [record.subject, record.from, bodySearchText(record)];
  // Lowercased as a whole, which also makes it one flat string (pieces joined by a template
  // would stay a tree of them, half as large again).
  return `${ADDRESS_MARK}${addresses}${ADDRESS_MARK}${FIELD_MARK}${fields.map(unmarked).join(FIELD_MARK)}`.toLowerCase();
}

/** A From or a sender id as search finds it beside the text (searchText leaves them out of it). */
export function searchField(value: string): string {
  return unmarked(value).toLowerCase();
}

/** The snippet, and the body's text when it says more (the snippet is its start unless an account template wrapped the body). */
function bodySearchText({ snippet = '', bodyText }: MessageRecord): string {
  if (bodyText === undefined) return snippet;
  return bodyText.startsWith(snippet) ? bodyText : `${snippet} ${bodyText}`;
}

/**
 * The text with the separators written as spaces: a sender may put them in a subject or an
 * address, where they would end the field early. Filters read their own text the same way.
 */
export function unmarked(text: string): string {
  return text.replaceAll(ADDRESS_MARK, ' ').replaceAll(FIELD_MARK, ' ');
}
