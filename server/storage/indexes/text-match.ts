import type { ImageSection } from '../disk/image-file.ts';
import type { MessageRecord } from '../records.ts';
import type { MessageRow } from './message-rows.ts';
import { InternedColumn, resized } from './rows.ts';
import { SearchTexts, searchField, searchText } from './search-texts.ts';

/**
 * A column of interned values kept beside the search texts (the captures' Froms, their sender
 * ids) that search looks in as if they were in the text: each value's id per slot (0: none).
 */
export interface ApartColumn {
  /** Every value, by id (id i + 1 is values()[i]). */
  values(): readonly string[];
  idOf(slot: number): number;
  /** The value as search reads it (lowercased, no field marks). */
  field(value: string): string;
}

interface Options {
  needles: readonly Uint8Array[];
  inSubject: Uint8Array | undefined;
  texts: SearchTexts;
  placeOf(slot: number): number;
  apart: readonly ApartColumn[];
  /** Changes when the columns' ids change meaning (a compaction interns their values again). */
  generation(): number;
  /** Changes whenever a column gains a value, and with the generation: read once per slot tested. */
  version(): number;
}

/**
 * A test of whether a slot holds every needle, each in its search text or in one of its values
 * apart, and `inSubject` in its subject. A needle no value apart holds (nearly always every one)
 * is looked for with the others in one text matcher, which reads a chunk once for them all; one
 * that some value holds gets a matcher of its own, asked only when the slot's values lack it.
 * Values interned after the test was made (a waiter's test lives on while captures arrive) are
 * looked at when they appear: one comparison per slot when none did.
 */
function textOrApart({ needles, inSubject, texts, placeOf, apart, generation, version }: Options): (slot: number) => boolean {
  const words = needles.map((needle) => Buffer.from(needle).toString('utf8'));
  let seen = -1;
  let seenValues = -1;
  let seenVersion = Number.NaN;
  // held[k][c][id] is 1 when value `id` of column c holds needle k.
  let held: number[][][] = [];
  let isApart: boolean[] = [];
  let inText: (place: number) => boolean = () => false;
  let alone: ((place: number) => boolean)[] = [];
  let ids: number[] = [];
  const refresh = () => {
    const now = generation();
    let values = 0;
    for (let c = 0; c < apart.length; c++) values += apart[c]!.values().length;
    if (now === seen && values === seenValues) return;
    // Within a generation values are only added: those past what was seen are looked at.
    const fresh = now !== seen;
    seen = now;
    seenValues = values;
    let changed = fresh;
    if (fresh) {
      held = needles.map(() => apart.map(() => [0]));
      isApart = needles.map(() => false);
    }
    for (let c = 0; c < apart.length; c++) {
      const column = apart[c]!;
      const values = column.values();
      for (let k = 0; k < needles.length; k++) {
        const flags = held[k]![c]!;
        for (let id = flags.length; id <= values.length; id++) {
          const hit = words[k] !== '' && column.field(values[id - 1]!).includes(words[k]!);
          flags.push(hit ? 1 : 0);
          if (hit && !isApart[k]) changed = isApart[k] = true;
        }
      }
    }
    if (!changed) return;
    inText = texts.matcher(
      needles.filter((_, k) => !isApart[k]),
      inSubject,
    );
    ids = needles.flatMap((_, k) => (isApart[k] ? [k] : []));
    alone = ids.map((k) => texts.matcher([needles[k]!]));
  };
  return (slot) => {
    if (version() !== seenVersion) {
      seenVersion = version();
      refresh();
    }
    const place = placeOf(slot);
    if (!inText(place)) return false;
    for (let n = 0; n < ids.length; n++) {
      const flags = held[ids[n]!]!;
      let found = false;
      for (let c = 0; c < apart.length && !found; c++) found = flags[c]![apart[c]!.idOf(slot)] === 1;
      if (!found && !alone[n]!(place)) return false;
    }
    return true;
  };
}

/** Distinct Froms kept apart from the search texts (a run has a few; a hostile sender, one per message). */
const FROM_LIMIT = 1 << 16;
/** Longer Froms stay in their texts (the interned ones are JS strings, kept until a compaction). */
const FROM_LENGTH = 256;

/**
 * What search reads of each capture of the index (message-index.ts), a slot each: the place of
 * its search text in `texts`, and its From as search reads it (searchField), kept apart from
 * the text. A run has a few Froms, which every text held (some 17 MB at a million captures);
 * the first `fromLimit` distinct ones of at most 256 characters are kept apart, any other stays
 * in its text. (The sender id, which search also reads, is the index's own column.)
 */
export class CaptureTexts {
  readonly texts = new SearchTexts();
  places = new Float64Array(1024);
  readonly froms: InternedColumn;

  constructor(fromLimit = FROM_LIMIT) {
    this.froms = new InternedColumn((from, count) => count < fromLimit && from.length <= FROM_LENGTH);
  }

  /** Sets the slot's text and From (a slot set before has had `remove`). */
  set(slot: number, record: MessageRecord): void {
    // A From too long to keep apart is not lowercased twice (searchText reads it too): a hostile
    // megabyte of one costs what it did before the From was kept apart.
    const from = record.from.length <= FROM_LENGTH ? searchField(record.from) : null;
    this.places[slot] = this.texts.add(searchText(record, this.froms.set(slot, from)));
  }

  remove(slot: number): void {
    this.texts.remove(this.places[slot]!);
  }

  /** Rewrites the texts of the first `used` slots (those `live` accepts) when dead bytes outweigh the live ones. */
  tidy(used: number, live: (slot: number) => boolean): void {
    if (this.texts.wasteful) this.texts.rewrite(this.places, used, live);
  }

  /** A test of a slot (textOrApart), the sender ids being `senders` (`sendersVersion` changing when they gain one). */
  matcher(needles: readonly Uint8Array[], inSubject: Uint8Array | undefined, senders: ApartColumn, sendersVersion: () => number): (slot: number) => boolean {
    const froms: ApartColumn = { values: () => this.froms.values(), idOf: (slot) => this.froms.ids[slot]!, field: (value) => value };
    return textOrApart({
      needles,
      inSubject,
      texts: this.texts,
      placeOf: (slot) => this.places[slot]!,
      apart: [froms, senders],
      generation: () => this.froms.generation,
      version: () => this.froms.version + sendersVersion(),
    });
  }

  /** The slot's search text, decoded (a string made for each call: for tests and tools, not scans). */
  text(slot: number): string {
    return this.texts.bytes(this.places[slot]!).toString('utf8');
  }

  startsWith(slot: number, prefix: Uint8Array): boolean {
    return this.texts.startsWith(this.places[slot]!, prefix);
  }

  /** The slot's text and From for a checkpoint row (MessageRow). */
  saveTo(slot: number, row: MessageRow): void {
    row.from = this.froms.value(slot);
    this.texts.locate(this.places[slot]!, row.text);
  }

  /**
   * Slots `at` to `at + count` from a checkpoint's rows: their texts end to end in `data` from
   * `textAt` (one copy per chunk they fill), their Froms `fromAt(i)` of the range's `strings`.
   */
  restore(
    slots: { at: number; count: number },
    data: Buffer,
    textAt: number,
    lengths: Uint32Array,
    fromIds: (i: number) => number,
    strings: readonly (string | null)[],
  ): void {
    const { at, count } = slots;
    this.texts.addAll(data, textAt, lengths, count, this.places, at);
    const froms = new Int32Array(strings.length).fill(-1);
    for (let i = 0; i < count; i++) {
      const id = fromIds(i);
      this.froms.ids[at + i] = froms[id]! >= 0 ? froms[id]! : (froms[id] = this.froms.intern(strings[id]));
    }
  }

  /** The columns a compaction moves rows in (keepRows); `compacted` after it. */
  get columns(): (Float64Array | Uint32Array)[] {
    return [this.places, this.froms.ids];
  }

  /** After a compaction left `used` slots: the texts rewritten if wasteful, the Froms no slot has forgotten. */
  compacted(used: number): void {
    this.tidy(used, () => true);
    this.froms.reintern(used);
  }

  /** Its state for a start-up image (disk/image-file.ts): the first `used` slots, the Froms, the texts. */
  image(out: ImageSection, used: number, room: number): Record<string, unknown> {
    out.put(this.places, used, room);
    return { froms: this.froms.image(out, used, room), texts: this.texts.image(out) };
  }

  /** What `image` saved, on texts that hold nothing yet. */
  adopt(from: ImageSection, saved: Record<string, unknown>): void {
    this.places = from.take(Float64Array);
    this.froms.adopt(from, saved.froms as string[]);
    this.texts.adopt(from, saved.texts as Record<string, unknown>);
  }

  resize(used: number, capacity: number): void {
    this.places = resized(this.places, used, capacity);
    this.froms.resize(used, capacity);
  }

  clear(): void {
    this.texts.clear();
    this.froms.clear();
  }
}
