import { bytesOf, Reader } from '../disk/checkpoint.ts';
import { ENTRY_HEADER } from '../packs/pack-file.ts';
import { contentRefs, type FlowMark, type MessageRecord } from '../records.ts';
import { Interned } from './rows.ts';

/**
 * The captures' compact index (message-index.ts) as a checkpoint holds one segment's rows
 * (storage/disk/checkpoint.ts), self-contained: the strings they name once, then each column
 * whole, the search texts end to end, and the few per-capture extras as JSON.
 */

/** The version of the format (its first byte). */
const RANGE_FORMAT = 1;

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
  /** The strings the rows name (teams, senders, namespaces): id i + 1 is strings[i]; 0 is none. */
  strings: readonly (string | null)[];
  seqs: Float64Array;
  created: Float64Array;
  bits: Uint16Array;
  /** Per row, three ids into `strings`: team, sender, namespace. */
  ids: Uint32Array;
  /** Per row: its pack, the bytes it takes there, where they end (PackUse; 0: none). */
  use: Uint32Array;
  /** Per row, its search text's length in bytes. */
  lengths: Uint32Array;
  extras: RowExtras;
}

/** One capture's row as the index holds it: its names as strings, its search text's bytes. */
export interface MessageRow {
  created: number;
  bits: number;
  team: string | undefined;
  sender: string | undefined;
  namespace: string | undefined;
  /** Its first pack (0: none), the bytes it takes there and where they end; `spread` when more than one. */
  use: PackUse | [0, 0, 0];
  spread: PackUse[] | undefined;
  text: Buffer;
  flow: FlowMark | undefined;
  pendingAt: number | undefined;
}

/** MessageRows made a row at a time (the strings interned as they come), for encodeMessageRows. */
export class MessageRowsWriter {
  private readonly strings = new Interned(1);
  private readonly rows: MessageRows;
  /** The search texts end to end, copied a row at a time (a chunk's work, not the encoding's). */
  private texts = Buffer.allocUnsafe(64 * 1024);
  private textsLength = 0;

  /** Rows for these sequence numbers, in order. */
  constructor(seqs: readonly number[]) {
    const count = seqs.length;
    this.rows = {
      count,
      strings: [],
      seqs: Float64Array.from(seqs),
      created: new Float64Array(count),
      bits: new Uint16Array(count),
      ids: new Uint32Array(3 * count),
      use: new Uint32Array(3 * count),
      lengths: new Uint32Array(count),
      extras: { f: [], s: [], p: [] },
    };
  }

  /** Row `i` (the capture of seqs[i]). */
  set(i: number, row: MessageRow): void {
    const { rows } = this;
    const seq = rows.seqs[i]!;
    const id = (value: string | undefined) => (value === undefined ? 0 : this.strings.id(value));
    rows.created[i] = row.created;
    rows.bits[i] = row.bits;
    rows.ids[3 * i] = id(row.team);
    rows.ids[3 * i + 1] = id(row.sender);
    rows.ids[3 * i + 2] = id(row.namespace);
    rows.use.set(row.use, 3 * i);
    rows.lengths[i] = row.text.length;
    if (this.textsLength + row.text.length > this.texts.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.texts.length * 2, this.textsLength + row.text.length));
      this.texts.copy(grown, 0, 0, this.textsLength);
      this.texts = grown;
    }
    this.textsLength += row.text.copy(this.texts, this.textsLength);
    if (row.flow) rows.extras.f.push([seq, row.flow]);
    if (row.spread) rows.extras.s.push([seq, row.spread]);
    if (row.pendingAt !== undefined) rows.extras.p.push([seq, row.pendingAt]);
  }

  encode(): Buffer {
    return encodeMessageRows({ ...this.rows, strings: [null, ...this.strings.values()] }, this.texts.subarray(0, this.textsLength));
  }
}

/** The rows with their search texts (end to end, in row order), as bytes. */
function encodeMessageRows(rows: MessageRows, texts: Buffer): Buffer {
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
  return Buffer.concat([
    head,
    ...table,
    bytesOf(rows.seqs),
    bytesOf(rows.created),
    bytesOf(rows.bits),
    bytesOf(rows.ids),
    bytesOf(rows.use),
    bytesOf(rows.lengths),
    texts,
    jsonLength,
    json,
  ]);
}

/**
 * Reads encodeMessageRows' bytes: the rows, and where in `data` their texts start (end to end,
 * in row order: copied from there, no Buffer made per capture). Throws on anything that does not
 * hold together.
 */
export function decodeMessageRows(data: Buffer): MessageRows & { textAt: number } {
  const reader = new Reader(data);
  if (reader.u8() !== RANGE_FORMAT) throw new Error('unknown index range format');
  const count = reader.u32();
  const strings: (string | null)[] = [null];
  for (let n = reader.u32(), i = 0; i < n; i++) strings.push(reader.utf8(reader.u32()));
  const seqs = reader.array(Float64Array, count);
  const created = reader.array(Float64Array, count);
  const bits = reader.array(Uint16Array, count);
  const ids = reader.array(Uint32Array, 3 * count);
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
