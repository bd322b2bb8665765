import { bytesOf, type Parts, Reader } from '../disk/checkpoint.ts';
import { ENTRY_HEADER } from '../packs/pack-file.ts';
import { contentRefs, type FlowMark, type MessageRecord } from '../records.ts';
import { Interned } from './rows.ts';

/**
 * The captures' compact index (message-index.ts) as a checkpoint holds one segment's rows
 * (storage/disk/checkpoint.ts), self-contained: the strings they name once, then each column
 * whole, the search texts end to end, and the few per-capture extras as JSON.
 */

/**
 * The version of the format (its first byte). 2: a fourth id per row, the From kept apart from
 * the search text. Ranges of format 1 (three ids, the From in every text) still read, as rows
 * whose From is in their text.
 */
const RANGE_FORMAT = 2;
const IDS = 4;

/**
 * A pack a capture's parts lie in, the bytes they take there (entry headers included), and where
 * the last of them ends (a pack shorter than that lost their bytes: a power loss).
 */
export type PackUse = [pack: number, bytes: number, end: number];

/** What few captures have: a flow mark, parts in more than one pack, a pending delivery's time (ms). */
interface RowExtras {
  f: [number, FlowMark][];
  s: [number, PackUse[]][];
  p: [number, number][];
}

export interface MessageRows {
  count: number;
  /** The strings the rows name (teams, senders, namespaces, Froms): id i + 1 is strings[i]; 0 is none. */
  strings: readonly (string | null)[];
  seqs: Float64Array;
  created: Float64Array;
  bits: Uint16Array;
  /** Per row, four ids into `strings`: team, sender, namespace, From (0: in its search text). */
  ids: Uint32Array;
  /** Per row: its pack, the bytes it takes there, where they end (PackUse; 0: none). */
  use: Uint32Array;
  /** Per row, its search text's length in bytes. */
  lengths: Uint32Array;
  extras: RowExtras;
}

/**
 * One capture's row as the index holds it: its names as strings, its search text's place. The
 * index fills one such object for every row (nothing allocated per row: a checkpoint takes
 * thousands while sends run, and young garbage means collections they wait behind).
 */
export interface MessageRow {
  created: number;
  bits: number;
  team: string | undefined;
  sender: string | undefined;
  namespace: string | undefined;
  /** Its From as search reads it, when it is not in its search text. */
  from: string | undefined;
  /** Its first pack (0: none), the bytes it takes there and where they end; `spread` when more than one. */
  pack: number;
  packBytes: number;
  packEnd: number;
  spread: PackUse[] | undefined;
  /** Its search text: bytes start..end of `memory`, which do not change once written (a search-text chunk's). */
  text: { memory: Buffer; start: number; end: number };
  flow: FlowMark | undefined;
  pendingAt: number | undefined;
}

/** A row to fill (MessageRow), its text none yet. */
export function emptyRow(): MessageRow {
  return {
    created: 0,
    bits: 0,
    team: undefined,
    sender: undefined,
    namespace: undefined,
    from: undefined,
    pack: 0,
    packBytes: 0,
    packEnd: 0,
    spread: undefined,
    text: { memory: Buffer.alloc(0), start: 0, end: 0 },
    flow: undefined,
    pendingAt: undefined,
  };
}

/** MessageRows made a row at a time (the strings interned as they come), for encodeMessageRows. */
export class MessageRowsWriter {
  private readonly strings = new Interned(1);
  private readonly rows: MessageRows;
  /**
   * The search texts end to end, as views of the chunks they lie in: the texts of rows next to
   * each other are next to each other in their chunk (appended in sequence order), so a
   * segment's 8,192 texts are a handful of ranges, and none is copied.
   */
  private readonly texts: Buffer[] = [];
  /** The range being grown: its memory, and where in it it starts and ends. */
  private memory: Buffer | null = null;
  private start = 0;
  private end = 0;

  /** Rows for these sequence numbers, in order. */
  constructor(seqs: readonly number[]) {
    const count = seqs.length;
    this.rows = {
      count,
      strings: [],
      seqs: Float64Array.from(seqs),
      created: new Float64Array(count),
      bits: new Uint16Array(count),
      ids: new Uint32Array(IDS * count),
      use: new Uint32Array(3 * count),
      lengths: new Uint32Array(count),
      extras: { f: [], s: [], p: [] },
    };
  }

  /** Row `i` (the capture of seqs[i]); `row` is read now, not kept. */
  set(i: number, row: MessageRow): void {
    const { rows } = this;
    const seq = rows.seqs[i]!;
    rows.created[i] = row.created;
    rows.bits[i] = row.bits;
    rows.ids[IDS * i] = this.id(row.team);
    rows.ids[IDS * i + 1] = this.id(row.sender);
    rows.ids[IDS * i + 2] = this.id(row.namespace);
    rows.ids[IDS * i + 3] = this.id(row.from);
    rows.use[3 * i] = row.pack;
    rows.use[3 * i + 1] = row.packBytes;
    rows.use[3 * i + 2] = row.packEnd;
    const { memory, start, end } = row.text;
    rows.lengths[i] = end - start;
    this.addText(memory, start, end);
    if (row.flow) rows.extras.f.push([seq, row.flow]);
    if (row.spread) rows.extras.s.push([seq, row.spread]);
    if (row.pendingAt !== undefined) rows.extras.p.push([seq, row.pendingAt]);
  }

  /** The rows as the parts of their bytes (checkpoint.ts Parts). */
  encode(): Parts {
    this.endRange();
    return encodeMessageRows({ ...this.rows, strings: [null, ...this.strings.values()] }, this.texts);
  }

  private id(value: string | undefined): number {
    return value === undefined ? 0 : this.strings.id(value);
  }

  /** Appends a text: the range grown when the text follows it in the same memory. */
  private addText(memory: Buffer, start: number, end: number): void {
    if (start === end) return;
    if (memory === this.memory && start === this.end) {
      this.end = end;
      return;
    }
    this.endRange();
    this.memory = memory;
    this.start = start;
    this.end = end;
  }

  private endRange(): void {
    if (this.memory) this.texts.push(this.memory.subarray(this.start, this.end));
    this.memory = null;
  }
}

/** The rows with their search texts (end to end, in row order, as ranges), as parts. */
function encodeMessageRows(rows: MessageRows, texts: readonly Buffer[]): Parts {
  const head = Buffer.alloc(9);
  head.writeUInt8(RANGE_FORMAT, 0);
  head.writeUInt32LE(rows.count, 1);
  head.writeUInt32LE(rows.strings.length - 1, 5);
  const table = rows.strings.slice(1).flatMap((value) => {
    const bytes = Buffer.from(value ?? '', 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    return [length, bytes];
  });
  const json = Buffer.from(JSON.stringify(rows.extras), 'utf8');
  const jsonLength = Buffer.alloc(4);
  jsonLength.writeUInt32LE(json.length);
  return [
    head,
    ...table,
    bytesOf(rows.seqs),
    bytesOf(rows.created),
    bytesOf(rows.bits),
    bytesOf(rows.ids),
    bytesOf(rows.use),
    bytesOf(rows.lengths),
    ...texts,
    jsonLength,
    json,
  ];
}

/**
 * Reads encodeMessageRows' bytes: the rows, and where in `data` their texts start (end to end,
 * in row order: copied from there, no Buffer made per capture). Throws on anything that does not
 * hold together.
 */
export function decodeMessageRows(data: Buffer): MessageRows & { textAt: number } {
  const reader = new Reader(data);
  const format = reader.u8();
  if (format !== RANGE_FORMAT && format !== 1) throw new Error('unknown index range format');
  const count = reader.u32();
  const strings: (string | null)[] = [null];
  for (let n = reader.u32(), i = 0; i < n; i++) strings.push(reader.utf8(reader.u32()));
  const seqs = reader.array(Float64Array, count);
  const created = reader.array(Float64Array, count);
  const bits = reader.array(Uint16Array, count);
  const ids = format === 1 ? widened(reader.array(Uint32Array, 3 * count), count) : reader.array(Uint32Array, IDS * count);
  const use = reader.array(Uint32Array, 3 * count);
  const lengths = reader.array(Uint32Array, count);
  let textBytes = 0;
  for (let i = 0; i < count; i++) textBytes += lengths[i]!;
  const textAt = reader.skip(textBytes);
  const extras = JSON.parse(reader.utf8(reader.u32())) as RowExtras;
  reader.end();
  for (let i = 1; i < count; i++) if (seqs[i]! <= seqs[i - 1]!) throw new Error('index range out of order');
  return { count, strings, seqs, created, bits, ids, use, lengths, extras, textAt };
}

/** Format 1's three ids per row as four, the fourth 0 (the From in the text). */
function widened(ids: Uint32Array, count: number): Uint32Array {
  const out = new Uint32Array(IDS * count);
  for (let i = 0; i < count; i++) out.set(ids.subarray(3 * i, 3 * i + 3), IDS * i);
  return out;
}

/**
 * The bytes restored captures take in each pack (which the pack store counts as live), and how
 * many have parts past where `packEnd` says their pack ends now (a power loss cut them).
 * Captures next to each other share a pack: their bytes are summed as a run, with one map
 * update per run rather than per capture (a million at start-up).
 */
export class PackTally {
  private readonly packs = new Map<number, number>();
  private cutShort = 0;
  private run = 0;
  private runBytes = 0;
  private runEnd = 0;

  constructor(private readonly packEnd: (pack: number) => number) {}

  /** A capture in one pack (0: none), `bytes` of it there, ending at `end`. */
  add(pack: number, bytes: number, end: number): void {
    if (pack === 0) return;
    if (pack !== this.run) {
      this.flush();
      this.run = pack;
      this.runEnd = this.packEnd(pack);
    }
    this.runBytes += bytes;
    if (end > this.runEnd) this.cutShort++;
  }

  /** A capture whose parts lie in more than one pack. */
  spread(uses: readonly PackUse[]): void {
    for (const [pack, bytes] of uses) this.packs.set(pack, (this.packs.get(pack) ?? 0) + bytes);
    if (uses.some(([pack, , end]) => end > this.packEnd(pack))) this.cutShort++;
  }

  done(): { packs: Map<number, number>; cutShort: number } {
    this.flush();
    return { packs: this.packs, cutShort: this.cutShort };
  }

  private flush(): void {
    if (this.run !== 0) this.packs.set(this.run, (this.packs.get(this.run) ?? 0) + this.runBytes);
    this.run = 0;
    this.runBytes = 0;
  }
}

/** The packs a capture's parts lie in and the bytes they take in each (as the pack store counts them live). */
export function packUse(record: MessageRecord): PackUse[] {
  const use: PackUse[] = [];
  for (const ref of contentRefs(record)) {
    if (!('p' in ref)) continue;
    const entry = ENTRY_HEADER + ref.n;
    const found = use.find(([pack]) => pack === ref.p);
    if (found) {
      found[1] += entry;
      found[2] = Math.max(found[2], ref.o + entry);
    } else use.push([ref.p, entry, ref.o + entry]);
  }
  return use;
}

/** What MessageIndex.image saves beside its arrays (disk/image-file.ts). */
export interface MessageImage {
  parts: [[number, PackUse[]][], readonly string[], Record<string, unknown>];
  maps: [[number, number][], [number, FlowMark][], [number, number][]];
  used: number;
  live: number;
  names: readonly string[];
}
