import { bytesOf, Reader } from '../disk/checkpoint.ts';
import { recordNamespace } from '../namespace.ts';
import { keepRows, lowerBound, resized } from './rows.ts';
import { SearchTexts } from './search-texts.ts';
import { ENTRY_HEADER } from '../packs/pack-store.ts';
import { contentRefs, DELIVERY_STATUSES, type DeliveryStatus, type FlowMark, type MessageRecord, type Source } from '../records.ts';

const SOURCES: readonly Source[] = ['api', 'smtp', 'flow'];
const STATUSES: readonly DeliveryStatus[] = DELIVERY_STATUSES;

// One 16-bit word of flags per capture.
const SOURCE_MASK = 0b11;
const STATUS_SHIFT = 2;
const STATUS_MASK = 0b111 << STATUS_SHIFT;
const BLOCKED = 1 << 5;
const REDIRECTED = 1 << 6;
const READ = 1 << 7;
const DEAD = 1 << 8;
/** An SMTP capture whose MIME parts were not extracted yet (record.unparsed). */
const UNPARSED = 1 << 9;

const SMTP = SOURCES.indexOf('smtp');
const PENDING = STATUSES.indexOf('pending') << STATUS_SHIFT;

/** The version of serializeRange's format (its first byte). */
const RANGE_FORMAT = 1;

/**
 * A pack a capture's parts lie in, the bytes they take there (entry headers included), and where
 * the last of them ends (a pack shorter than that lost their bytes: a power loss).
 */
export type PackUse = [pack: number, bytes: number, end: number];

/** Separators in the search text: before every address, and between the other fields. */
export const ADDRESS_MARK = '\u0001';
const FIELD_MARK = '\u0002';

/**
 * Every capture, as compact as the inbox's lists, filters, search and wait-for allow
 * (docs/storage.md: memory per capture is only what those need). Fixed-size fields live in
 * typed arrays, one slot per capture in sequence order; its search text (the addresses, subject,
 * From, sender id and body snippet, lowercased) is UTF-8 bytes in shared chunks (search-texts.ts):
 * no object or string per capture. Everything else (names, flags, attachments, where the bodies
 * are) is read from the segment files when a capture is shown.
 */
export class MessageIndex {
  private seqs = new Float64Array(1024);
  private created = new Float64Array(1024);
  private bits = new Uint16Array(1024);
  private teams = new Uint16Array(1024);
  private senders = new Uint16Array(1024);
  /** The pack holding the capture's stored parts (0: none), and how many bytes of it they take. */
  private packs = new Uint32Array(1024);
  private packBytes = new Uint32Array(1024);
  private packEnds = new Uint32Array(1024);
  /** Each capture's namespace, interned (many per run: one per test); 0 is none. */
  private spaces = new Uint32Array(1024);
  /** Where each capture's search text is in `texts`. */
  private places = new Float64Array(1024);
  private readonly texts = new SearchTexts();
  private used = 0;
  private liveCount = 0;
  /** Team and sender ids, interned: a handful per configuration. Index 0 is null. */
  private readonly names: (string | null)[] = [null];
  private readonly nameIds = new Map<string, number>();
  /** Namespaces, interned apart from the names (they are many, and filtered by equality). */
  private readonly spaceNames: (string | null)[] = [null];
  private readonly spaceIds = new Map<string, number>();
  /** Flow captures' marks: the flow engine's proof that a step was sent (few captures have one). */
  private readonly flowMarks = new Map<number, FlowMark>();
  /** Whether captures are being loaded at start-up (see pendingDeliveries and unparsedCaptures). */
  private loading = true;
  /** Captures loaded with their MIME parts not extracted yet (SMTP messages cut off by a stop). */
  private readonly unparsed: number[] = [];
  /** Live API and flow captures per team (the /v1 email list's count without scanning). */
  private readonly teamRecords = new Map<number, number>();
  /** Captures loaded with a pending status, and when it turns (ms): the domain schedules them. */
  private readonly deliveries = new Map<number, number>();
  /** When each capture stored as pending (with a time) turns, in ms: start-up's deliveries come from here. */
  private readonly pendingAt = new Map<number, number>();
  /**
   * Captures whose parts lie in more than one pack (a pack sealed between two of its parts):
   * every pack and its bytes. Rare; the others' one pack is in `packs` and `packBytes`.
   */
  private readonly spread = new Map<number, PackUse[]>();

  get size(): number {
    return this.liveCount;
  }

  /** Adds a capture; captures arrive in sequence order. */
  add(record: MessageRecord): void {
    const slot = this.append(record.seq);
    this.created[slot] = Date.parse(record.createdAt);
    this.bits[slot] =
      SOURCES.indexOf(record.source) |
      (STATUSES.indexOf(record.status) << STATUS_SHIFT) |
      (record.blocked ? BLOCKED : 0) |
      (record.redirected ? REDIRECTED : 0) |
      (record.read ? READ : 0) |
      (record.unparsed ? UNPARSED : 0);
    this.teams[slot] = this.nameId(record.team);
    this.senders[slot] = this.nameId(record.sender);
    this.spaces[slot] = this.spaceId(recordNamespace(record));
    this.places[slot] = this.texts.add(searchText(record));
    this.setUse(slot, record.seq, packUse(record));
    if (record.flow) this.flowMarks.set(record.seq, record.flow);
    if (record.status === 'pending' && record.deliverAt !== null) this.pendingAt.set(record.seq, Date.parse(record.deliverAt));
    this.added(slot);
  }

  /** A new slot at the end for `seq` (captures arrive in sequence order). */
  private append(seq: number): number {
    if (this.used > 0 && seq <= this.seqs[this.used - 1]!) throw new Error(`capture ${seq} arrived out of order`);
    if (this.used === this.seqs.length) this.grow(this.seqs.length * 2);
    const slot = this.used++;
    this.seqs[slot] = seq;
    return slot;
  }

  /** Counts a slot whose fields are set: per team, and what start-up schedules again. */
  private added(slot: number): void {
    const seq = this.seqs[slot]!;
    const bits = this.bits[slot]!;
    if ((bits & SOURCE_MASK) !== SMTP) this.teamRecords.set(this.teams[slot]!, (this.teamRecords.get(this.teams[slot]!) ?? 0) + 1);
    if (this.loading) {
      // What start-up must schedule again; afterwards the domain tracks these itself.
      const at = this.pendingAt.get(seq);
      if (at !== undefined && (bits & STATUS_MASK) === PENDING) this.deliveries.set(seq, at);
      if (bits & UNPARSED) this.unparsed.push(seq);
    }
    this.liveCount++;
  }

  private setUse(slot: number, seq: number, use: PackUse[]): void {
    this.packs[slot] = use[0]?.[0] ?? 0;
    this.packBytes[slot] = use[0]?.[1] ?? 0;
    this.packEnds[slot] = use[0]?.[2] ?? 0;
    if (use.length > 1) this.spread.set(seq, use);
    else this.spread.delete(seq);
  }

  /** The slot of a live capture, or -1. */
  slotOf(seq: number): number {
    let lo = 0;
    let hi = this.used - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.seqs[mid]!;
      if (at === seq) return this.bits[mid]! & DEAD ? -1 : mid;
      if (at < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  has(seq: number): boolean {
    return this.slotOf(seq) >= 0;
  }

  remove(seq: number): boolean {
    const slot = this.slotOf(seq);
    if (slot < 0) return false;
    this.bits[slot]! |= DEAD;
    if ((this.bits[slot]! & SOURCE_MASK) !== SMTP) this.teamRecords.set(this.teams[slot]!, (this.teamRecords.get(this.teams[slot]!) ?? 1) - 1);
    this.texts.remove(this.places[slot]!);
    this.flowMarks.delete(seq);
    this.pendingAt.delete(seq);
    this.spread.delete(seq);
    this.liveCount--;
    if (this.used - this.liveCount > Math.max(4096, this.liveCount)) this.compact();
    else if (this.texts.wasteful) this.texts.rewrite(this.places, this.used, (slot) => !(this.bits[slot]! & DEAD));
    return true;
  }

  clear(): void {
    this.used = 0;
    this.liveCount = 0;
    this.texts.clear();
    this.flowMarks.clear();
    this.teamRecords.clear();
    this.deliveries.clear();
    this.pendingAt.clear();
    this.spread.clear();
    this.spaceNames.length = 1;
    this.spaceIds.clear();
    this.grow(1024);
  }

  setStatus(seq: number, status: DeliveryStatus): void {
    const slot = this.slotOf(seq);
    if (slot >= 0) this.bits[slot] = (this.bits[slot]! & ~STATUS_MASK) | (STATUSES.indexOf(status) << STATUS_SHIFT);
  }

  setRead(seq: number, read: boolean): void {
    const slot = this.slotOf(seq);
    if (slot >= 0) this.bits[slot] = read ? this.bits[slot]! | READ : this.bits[slot]! & ~READ;
  }

  /** The capture's parts moved (a pack compacted): where they are now. */
  setContent(record: MessageRecord): void {
    const slot = this.slotOf(record.seq);
    if (slot >= 0) this.setUse(slot, record.seq, packUse(record));
  }

  /** Whether any of the capture's parts lies in pack `no`. */
  usesPack(slot: number, no: number): boolean {
    if (this.packs[slot] === no) return true;
    const spread = this.spread.get(this.seqs[slot]!);
    return spread?.some(([pack]) => pack === no) === true;
  }

  /** How many API and flow captures the team has (its /v1 email records). */
  teamRecordCount(team: string): number {
    const id = this.nameIds.get(team);
    return id === undefined ? 0 : (this.teamRecords.get(id) ?? 0);
  }

  /** Reading a slot's fields (for filters). */
  seq(slot: number): number {
    return this.seqs[slot]!;
  }
  createdMs(slot: number): number {
    return this.created[slot]!;
  }
  source(slot: number): Source {
    return SOURCES[this.bits[slot]! & SOURCE_MASK]!;
  }
  status(slot: number): DeliveryStatus {
    return STATUSES[(this.bits[slot]! & STATUS_MASK) >> STATUS_SHIFT]!;
  }
  blocked(slot: number): boolean {
    return (this.bits[slot]! & BLOCKED) !== 0;
  }
  redirected(slot: number): boolean {
    return (this.bits[slot]! & REDIRECTED) !== 0;
  }
  read(slot: number): boolean {
    return (this.bits[slot]! & READ) !== 0;
  }
  team(slot: number): string | null {
    return this.names[this.teams[slot]!]!;
  }
  sender(slot: number): string | null {
    return this.names[this.senders[slot]!]!;
  }
  /** The capture's namespace (storage/namespace.ts), or null. */
  namespace(slot: number): string | null {
    return this.spaceNames[this.spaces[slot]!]!;
  }
  /**
   * A test of whether a slot's search text (see searchText) holds every needle (UTF-8 bytes of
   * lowercased text), and `inSubject` within its subject (search-texts.ts matcher).
   */
  textMatcher(needles: readonly Uint8Array[], inSubject?: Uint8Array): (slot: number) => boolean {
    const match = this.texts.matcher(needles, inSubject);
    return (slot) => match(this.places[slot]!);
  }
  /** The slot's search text, decoded (a string made for each call: for tests and tools, not scans). */
  text(slot: number): string {
    return this.texts.bytes(this.places[slot]!).toString('utf8');
  }
  /** Whether the slot's search text begins with `prefix` (UTF-8 bytes). */
  textStartsWith(slot: number, prefix: Uint8Array): boolean {
    return this.texts.startsWith(this.places[slot]!, prefix);
  }
  flow(seq: number): FlowMark | undefined {
    return this.flowMarks.get(seq);
  }
  flowCaptures(): IterableIterator<[number, FlowMark]> {
    return this.flowMarks.entries();
  }
  /** Captures loaded with their MIME parts still to extract (taken once, when loading is over). */
  unparsedCaptures(): number[] {
    this.loading = false;
    return this.unparsed.splice(0);
  }

  /** The search text changed (an SMTP message's parts were extracted: its snippet is known). */
  setText(seq: number, text: string): void {
    const slot = this.slotOf(seq);
    if (slot < 0) return;
    this.texts.remove(this.places[slot]!);
    this.places[slot] = this.texts.add(text);
    this.bits[slot]! &= ~UNPARSED;
    if (this.texts.wasteful) this.texts.rewrite(this.places, this.used, (at) => !(this.bits[at]! & DEAD));
  }

  /** Captures that were pending when loaded, and when each turns (ms since the epoch). */
  pendingDeliveries(): [number, number][] {
    this.loading = false;
    const out = [...this.deliveries];
    this.deliveries.clear();
    return out;
  }

  /** Slots of live captures, newest first, that pass `match`; stops when `visit` returns false. */
  scanNewestFirst(match: (slot: number) => boolean, visit: (slot: number) => boolean | undefined): void {
    for (let slot = this.used - 1; slot >= 0; slot--) {
      if (this.bits[slot]! & DEAD) continue;
      if (!match(slot)) continue;
      if (visit(slot) === false) return;
    }
  }

  /** Sequence numbers of live captures, oldest first, that pass `match`, at most `limit`. */
  oldest(limit: number, match: (slot: number) => boolean = () => true): number[] {
    const out: number[] = [];
    for (let slot = 0; slot < this.used && out.length < limit; slot++) {
      if (this.bits[slot]! & DEAD) continue;
      if (match(slot)) out.push(this.seqs[slot]!);
    }
    return out;
  }

  /** When the oldest live capture was created (ms), or null when there is none. */
  oldestCreatedMs(): number | null {
    for (let slot = 0; slot < this.used; slot++) if (!(this.bits[slot]! & DEAD)) return this.created[slot]!;
    return null;
  }

  /** The newest live sequence number, or 0. */
  maxSeq(): number {
    for (let slot = this.used - 1; slot >= 0; slot--) if (!(this.bits[slot]! & DEAD)) return this.seqs[slot]!;
    return 0;
  }

  /**
   * The live captures with `lo <= seq < hi`, self-contained, for a checkpoint (storage/checkpoint.ts):
   * restoreRange appends them again. `expected` is what the segment file holds live, in order:
   * when the captures here differ (a write not settled yet), null: nothing consistent to save.
   */
  serializeRange(lo: number, hi: number, expected: readonly number[]): Buffer | null {
    const slots: number[] = [];
    let slot = lowerBound(this.seqs, this.used, lo);
    for (; slot < this.used && this.seqs[slot]! < hi; slot++) {
      if (this.bits[slot]! & DEAD) continue;
      if (this.seqs[slot] !== expected[slots.length]) return null;
      slots.push(slot);
    }
    if (slots.length !== expected.length) return null;
    const n = slots.length;
    const strings = new Map<string, number>();
    const local = (value: string | null): number => {
      if (value === null) return 0;
      let id = strings.get(value);
      if (id === undefined) {
        id = strings.size + 1;
        strings.set(value, id);
      }
      return id;
    };
    const seqs = new Float64Array(n);
    const created = new Float64Array(n);
    const bits = new Uint16Array(n);
    const ids = new Uint32Array(3 * n);
    const use = new Uint32Array(3 * n);
    const lengths = new Uint32Array(n);
    const texts: Buffer[] = [];
    const extras: { f: [number, FlowMark][]; s: [number, PackUse[]][]; p: [number, number][] } = { f: [], s: [], p: [] };
    slots.forEach((from, i) => {
      const seq = this.seqs[from]!;
      seqs[i] = seq;
      created[i] = this.created[from]!;
      bits[i] = this.bits[from]!;
      ids[3 * i] = local(this.names[this.teams[from]!]!);
      ids[3 * i + 1] = local(this.names[this.senders[from]!]!);
      ids[3 * i + 2] = local(this.spaceNames[this.spaces[from]!]!);
      use[3 * i] = this.packs[from]!;
      use[3 * i + 1] = this.packBytes[from]!;
      use[3 * i + 2] = this.packEnds[from]!;
      const text = this.texts.bytes(this.places[from]!);
      lengths[i] = text.length;
      texts.push(text);
      const flow = this.flowMarks.get(seq);
      if (flow) extras.f.push([seq, flow]);
      const spread = this.spread.get(seq);
      if (spread) extras.s.push([seq, spread]);
      const at = this.pendingAt.get(seq);
      if (at !== undefined) extras.p.push([seq, at]);
    });
    const head = Buffer.alloc(9);
    head.writeUInt8(RANGE_FORMAT, 0);
    head.writeUInt32LE(n, 1);
    head.writeUInt32LE(strings.size, 5);
    const table = [...strings.keys()].flatMap((value) => {
      const bytes = Buffer.from(value, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.length);
      return [length, bytes];
    });
    const json = Buffer.from(JSON.stringify(extras), 'utf8');
    const jsonLength = Buffer.alloc(4);
    jsonLength.writeUInt32LE(json.length);
    return Buffer.concat([
      head,
      ...table,
      bytesOf(seqs),
      bytesOf(created),
      bytesOf(bits),
      bytesOf(ids),
      bytesOf(use),
      bytesOf(lengths),
      ...texts,
      jsonLength,
      json,
    ]);
  }

  /**
   * Appends the captures serializeRange wrote (ranges arrive in sequence order, as segments
   * load); returns the bytes they take in each pack, which the pack store counts as live, and
   * how many have parts past where `packEnd` says their pack ends now. Throws, having changed
   * nothing, on a range it cannot read (the caller reads the segment file instead).
   */
  restoreRange(data: Buffer, packEnd: (pack: number) => number): { packs: Map<number, number>; cutShort: number } {
    const reader = new Reader(data);
    if (reader.u8() !== RANGE_FORMAT) throw new Error('unknown index range format');
    const n = reader.u32();
    const strings: (string | null)[] = [null];
    for (let count = reader.u32(), i = 0; i < count; i++) strings.push(reader.utf8(reader.u32()));
    const seqs = reader.array(Float64Array, n);
    const created = reader.array(Float64Array, n);
    const bits = reader.array(Uint16Array, n);
    const ids = reader.array(Uint32Array, 3 * n);
    const use = reader.array(Uint32Array, 3 * n);
    const lengths = reader.array(Uint32Array, n);
    // The texts lie end to end: copied from here into the search texts, with no Buffer made per capture.
    let textBytes = 0;
    for (let i = 0; i < n; i++) textBytes += lengths[i]!;
    const textAt = reader.skip(textBytes);
    const extras = JSON.parse(reader.utf8(reader.u32())) as { f: [number, FlowMark][]; s: [number, PackUse[]][]; p: [number, number][] };
    reader.end();
    for (let i = 1; i < n; i++) if (seqs[i]! <= seqs[i - 1]!) throw new Error('index range out of order');
    if (n > 0 && this.used > 0 && seqs[0]! <= this.seqs[this.used - 1]!) throw new Error('index range out of order');
    for (const [seq, mark] of extras.f) this.flowMarks.set(seq, mark);
    for (const [seq, at] of extras.p) this.pendingAt.set(seq, at);
    const spread = new Map(extras.s);
    const packs = new Map<number, number>();
    let cutShort = 0;
    // Room for the range, then its texts in one copy per chunk (a copy per capture was half the
    // restore's time), and each of its strings interned once (-1: not yet).
    if (this.used + n > this.seqs.length) this.grow(Math.max(this.seqs.length * 2, this.used + n));
    this.texts.addAll(data, textAt, lengths, n, this.places, this.used);
    const names = new Int32Array(strings.length).fill(-1);
    const spaces = new Int32Array(strings.length).fill(-1);
    const name = (at: number) => (names[at]! >= 0 ? names[at]! : (names[at] = this.nameId(strings[at] ?? null)));
    const space = (at: number) => (spaces[at]! >= 0 ? spaces[at]! : (spaces[at] = this.spaceId(strings[at] ?? null)));
    for (let i = 0; i < n; i++) {
      const seq = seqs[i]!;
      const slot = this.append(seq);
      this.created[slot] = created[i]!;
      this.bits[slot] = bits[i]! & ~DEAD;
      this.teams[slot] = name(ids[3 * i]!);
      this.senders[slot] = name(ids[3 * i + 1]!);
      this.spaces[slot] = space(ids[3 * i + 2]!);
      const uses = spread.get(seq);
      if (uses) {
        this.setUse(slot, seq, uses);
        for (const [pack, bytes] of uses) packs.set(pack, (packs.get(pack) ?? 0) + bytes);
        if (uses.some(([pack, , end]) => end > packEnd(pack))) cutShort++;
      } else {
        // Nearly every capture: one pack or none, set with no array made for it.
        const pack = use[3 * i]!;
        const bytes = use[3 * i + 1]!;
        const end = use[3 * i + 2]!;
        this.packs[slot] = pack;
        this.packBytes[slot] = bytes;
        this.packEnds[slot] = end;
        if (pack !== 0) {
          packs.set(pack, (packs.get(pack) ?? 0) + bytes);
          if (end > packEnd(pack)) cutShort++;
        }
      }
      this.added(slot);
    }
    return { packs, cutShort };
  }

  /** Drops dead slots (after many deletions). */
  private compact(): void {
    const columns = [this.seqs, this.created, this.bits, this.teams, this.senders, this.packs, this.packBytes, this.packEnds, this.spaces, this.places];
    const to = keepRows(columns, this.used, (slot) => !(this.bits[slot]! & DEAD));
    this.used = to;
    if (this.texts.wasteful) this.texts.rewrite(this.places, this.used, () => true);
    this.grow(Math.max(1024, to * 2));
    this.reinternSpaces();
  }

  /** Forgets the namespaces no live capture has any more (one per test adds up over a long run). */
  private reinternSpaces(): void {
    const names = this.spaceNames.slice();
    this.spaceNames.length = 1;
    this.spaceIds.clear();
    for (let slot = 0; slot < this.used; slot++) this.spaces[slot] = this.spaceId(names[this.spaces[slot]!]!);
  }

  private grow(capacity: number): void {
    this.seqs = resized(this.seqs, this.used, capacity);
    this.created = resized(this.created, this.used, capacity);
    this.bits = resized(this.bits, this.used, capacity);
    this.teams = resized(this.teams, this.used, capacity);
    this.senders = resized(this.senders, this.used, capacity);
    this.packs = resized(this.packs, this.used, capacity);
    this.packBytes = resized(this.packBytes, this.used, capacity);
    this.packEnds = resized(this.packEnds, this.used, capacity);
    this.spaces = resized(this.spaces, this.used, capacity);
    this.places = resized(this.places, this.used, capacity);
  }

  private spaceId(namespace: string | null): number {
    if (namespace === null) return 0;
    let id = this.spaceIds.get(namespace);
    if (id === undefined) {
      id = this.spaceNames.length;
      this.spaceNames.push(namespace);
      this.spaceIds.set(namespace, id);
    }
    return id;
  }

  private nameId(name: string | null): number {
    if (name === null) return 0;
    let id = this.nameIds.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.nameIds.set(name, id);
    }
    return id;
  }
}

/**
 * What search and the address filters look in, lowercased:
 * `\x01recipient\x01to...\x01cc...\x01bcc...\x01\x02subject\x02from\x02sender\x02snippet and body text`,
 * each address once.
 * The original recipient comes first, so "sent to" is a prefix test; any address is
 * `\x01address\x01`.
 */
export function searchText(record: MessageRecord): string {
  // Each address once (the recipient is nearly always To as well): a filter asks whether an
  // address is there, not how often, and a million captures keep ~25 MB less.
  const addresses = [...new Set([record.recipient, ...record.to, ...record.cc, ...record.bcc].map((a) => unmarked(a.trim()).toLowerCase()))].join(ADDRESS_MARK);
  const fields = [record.subject, record.from, record.sender ?? '', bodySearchText(record)].map(unmarked);
  // Lowercased as a whole, which also makes it one flat string (pieces joined by a template
  // would stay a tree of them, half as large again).
  return `${ADDRESS_MARK}${addresses}${ADDRESS_MARK}${FIELD_MARK}${fields.join(FIELD_MARK)}`.toLowerCase();
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

/** The packs a capture's parts lie in and the bytes they take in each (as the pack store counts them live). */
function packUse(record: MessageRecord): PackUse[] {
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
