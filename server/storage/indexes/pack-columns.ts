import type { ImageSection } from '../disk/image-file.ts';
import { contentRefs, type MessageRecord } from '../records.ts';
import { PACKED, PENDING, STATUS_MASK, UNPARSED } from './message-flags.ts';
import type { PackUse } from './message-rows.ts';
import { resized } from './rows.ts';

/**
 * Where each capture's stored parts lie, by slot of the captures' index (message-index.ts): its
 * pack (0: none), the bytes its parts take there (entry headers included) and where the last of
 * them ends. A capture whose parts lie in more than one pack (a pack sealed between two of its
 * parts: rare) has every pack in `spread`. Start-up counts the packs' live bytes from these, a
 * deletion releases them (MessageIndex.packsForDeletion), compaction asks who uses a pack.
 */
export class PackColumns {
  packs = new Uint32Array(1024);
  bytes = new Uint32Array(1024);
  ends = new Uint32Array(1024);
  private readonly spread = new Map<number, PackUse[]>();

  /** The capture's use (message-rows.ts packUse) at its slot. */
  set(slot: number, seq: number, use: PackUse[]): void {
    this.setOne(slot, use[0]?.[0] ?? 0, use[0]?.[1] ?? 0, use[0]?.[2] ?? 0);
    if (use.length > 1) this.spread.set(seq, use);
    else this.spread.delete(seq);
  }

  /** One pack or none at the slot, with no array made for it (nearly every capture at start-up). */
  setOne(slot: number, pack: number, bytes: number, end: number): void {
    this.packs[slot] = pack;
    this.bytes[slot] = bytes;
    this.ends[slot] = end;
  }

  /** Every pack the capture at `slot` uses, with its bytes and end there. */
  uses(slot: number, seq: number): readonly PackUse[] {
    return this.spread.get(seq) ?? (this.packs[slot] === 0 ? [] : [[this.packs[slot]!, this.bytes[slot]!, this.ends[slot]!]]);
  }

  /** Its packs when more than one. */
  spreadOf(seq: number): PackUse[] | undefined {
    return this.spread.get(seq);
  }

  /** Whether any of the capture's parts lies in pack `no`. */
  usesPack(slot: number, seq: number, no: number): boolean {
    if (this.packs[slot] === no) return true;
    return this.spread.get(seq)?.some(([pack]) => pack === no) === true;
  }

  /** The capture is gone. */
  forget(seq: number): void {
    this.spread.delete(seq);
  }

  clear(): void {
    this.spread.clear();
  }

  /** The columns (compaction moves their rows with the index's others). */
  get columns(): Uint32Array[] {
    return [this.packs, this.bytes, this.ends];
  }

  /** Its state for a start-up image (disk/image-file.ts): the first `used` slots, and the spread captures. */
  image(out: ImageSection, used: number, room: number): [number, PackUse[]][] {
    for (const column of this.columns) out.put(column, used, room);
    return [...this.spread];
  }

  /** What `image` saved, on columns that hold nothing yet. */
  adopt(from: ImageSection, spread: [number, PackUse[]][]): void {
    this.packs = from.take(Uint32Array);
    this.bytes = from.take(Uint32Array);
    this.ends = from.take(Uint32Array);
    for (const [seq, uses] of spread) this.spread.set(seq, uses);
  }

  resize(used: number, capacity: number): void {
    this.packs = resized(this.packs, used, capacity);
    this.bytes = resized(this.bytes, used, capacity);
    this.ends = resized(this.ends, used, capacity);
  }
}

/** `bits` with PACKED (message-flags.ts) set when every stored part of the record lies in a pack. */
export function withPacked(bits: number, record: MessageRecord): number {
  return (bits & ~PACKED) | (contentRefs(record).every((ref) => 'p' in ref) ? PACKED : 0);
}

/**
 * Whether a capture with these flags is deleted from the index alone: every part in a pack (not
 * a row from a checkpoint older than PACKED), no outcome pending (a read settles it first), its
 * MIME parts taken apart.
 */
export function deletableFromIndex(bits: number): boolean {
  return (bits & PACKED) !== 0 && (bits & STATUS_MASK) !== PENDING && (bits & UNPARSED) === 0;
}
