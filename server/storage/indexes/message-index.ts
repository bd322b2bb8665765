import type { Parts } from '../disk/checkpoint.ts';
import type { ImageSection } from '../disk/image-file.ts';
import { recordNamespace } from '../namespace.ts';
import { BLOCKED, DEAD, flagsOf, READ, REDIRECTED, SMTP, SOURCE_MASK, SOURCES, STATUS_MASK, STATUS_SHIFT, STATUSES, UNPARSED } from './message-flags.ts';
import { decodeMessageRows, emptyRow, MessageRowsWriter, type MessageImage, PackTally, type PackUse, packUse } from './message-rows.ts';
import { LoadedWork } from './loaded-work.ts';
import { deletableFromIndex, PackColumns, withPacked } from './pack-columns.ts';
import {
  grownFrom,
  Interned,
  InternedColumn,
  keepRows,
  liveRowsIn,
  newestFirst,
  nextTurn,
  oldestFirst,
  roomFor,
  ROWS_PER_TURN,
  resized,
  slotWithSeq,
} from './rows.ts';
import { searchField } from './search-texts.ts';
import { CaptureTexts } from './text-match.ts';
import type { DeliveryStatus, FlowMark, MessageRecord, Source } from '../records.ts';

/**
 * Every capture, as compact as the inbox's lists, filters, search and wait-for allow
 * (docs/storage.md: memory per capture is only what those need). Fixed-size fields live in
 * typed arrays, one slot per capture in sequence order; its search text (the addresses, subject
 * and body snippet, lowercased) is UTF-8 bytes in shared chunks (search-texts.ts): no object or
 * string per capture. Its From and sender id, which search also looks in, are interned beside
 * it: a handful of values for a million captures. Everything else (names, flags, attachments,
 * where the bodies are) is read from the segment files when a capture is shown.
 */
export class MessageIndex {
  private seqs = new Float64Array(1024);
  private created = new Float64Array(1024);
  private bits = new Uint16Array(1024);
  private teams = new Uint16Array(1024);
  private senders = new Uint16Array(1024);
  /** Where the capture's stored parts are: the packs and the bytes they take there. */
  private readonly use = new PackColumns();
  /** Each capture's namespace, interned (many per run: one per test); 0 is none. */
  private readonly spaces = new InternedColumn();
  /** Each capture's search text and From (text-match.ts). */
  private readonly search: CaptureTexts;
  private used = 0;
  private liveCount = 0;
  /** Team and sender ids, interned: a handful per configuration. Index 0 is null. */
  private names = new Interned(1);
  /** Flow captures' marks: the flow engine's proof that a step was sent (few captures have one). */
  private flowMarks = new Map<number, FlowMark>();
  /** Live API and flow captures per team (the /v1 email list's count without scanning). */
  private teamRecords = new Map<number, number>();
  /** Pending deliveries and unextracted messages: what start-up hands the domain, once. */
  readonly work = new LoadedWork();

  /** `fromLimit`: how many distinct Froms are kept apart from the search texts (tests make it small). */
  constructor(fromLimit?: number) {
    this.search = new CaptureTexts(fromLimit);
  }

  get size(): number {
    return this.liveCount;
  }

  /** Adds a capture; captures arrive in sequence order. */
  add(record: MessageRecord): void {
    const slot = this.append(record.seq);
    this.created[slot] = Date.parse(record.createdAt);
    this.bits[slot] = withPacked(flagsOf(record), record);
    this.teams[slot] = this.nameId(record.team);
    this.senders[slot] = this.nameId(record.sender);
    this.spaces.set(slot, recordNamespace(record));
    this.search.set(slot, record);
    this.use.set(slot, record.seq, packUse(record));
    if (record.flow) this.flowMarks.set(record.seq, record.flow);
    if (record.status === 'pending' && record.deliverAt !== null) this.work.pendingAt.set(record.seq, Date.parse(record.deliverAt));
    this.added(slot);
  }

  /** A new slot at the end for `seq` (captures arrive in sequence order). */
  private append(seq: number): number {
    if (this.used > 0 && seq <= this.seqs[this.used - 1]!) throw new Error(`capture ${seq} arrived out of order`);
    if (this.used === this.seqs.length) this.grow(grownFrom(this.seqs.length));
    const slot = this.used++;
    this.seqs[slot] = seq;
    return slot;
  }

  /** Counts a slot whose fields are set: per team, and what start-up schedules again. */
  private added(slot: number): void {
    const seq = this.seqs[slot]!;
    const bits = this.bits[slot]!;
    if ((bits & SOURCE_MASK) !== SMTP) this.teamRecords.set(this.teams[slot]!, (this.teamRecords.get(this.teams[slot]!) ?? 0) + 1);
    this.work.added(seq, bits);
    this.liveCount++;
  }

  /** The slot of a live capture, or -1. */
  slotOf(seq: number): number {
    const slot = slotWithSeq(this.seqs, this.used, seq);
    return slot >= 0 && !(this.bits[slot]! & DEAD) ? slot : -1;
  }

  has = (seq: number): boolean => this.slotOf(seq) >= 0;

  remove(seq: number): boolean {
    const slot = this.slotOf(seq);
    if (slot < 0) return false;
    this.bits[slot]! |= DEAD;
    if ((this.bits[slot]! & SOURCE_MASK) !== SMTP) this.teamRecords.set(this.teams[slot]!, (this.teamRecords.get(this.teams[slot]!) ?? 1) - 1);
    this.search.remove(slot);
    this.flowMarks.delete(seq);
    this.work.pendingAt.delete(seq);
    this.use.forget(seq);
    this.liveCount--;
    if (this.used - this.liveCount > Math.max(4096, this.liveCount)) this.compact();
    else this.search.tidy(this.used, (slot) => !(this.bits[slot]! & DEAD));
    return true;
  }

  clear(): void {
    this.used = 0;
    this.liveCount = 0;
    this.search.clear();
    this.flowMarks.clear();
    this.teamRecords.clear();
    this.work.clear();
    this.use.clear();
    this.spaces.clear();
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
    if (slot < 0) return;
    this.use.set(slot, record.seq, packUse(record));
    this.bits[slot] = withPacked(this.bits[slot]!, record);
  }

  /**
   * What deleting the capture releases, from the index alone: the bytes it takes in each pack
   * (PackUse, as packUse gives them). Null when its record must be read first: a part in a file
   * of its own (or a row from a checkpoint older than the PACKED flag), an outcome still
   * pending (settled first, as any read would), MIME parts not taken apart yet.
   */
  packsForDeletion(seq: number): readonly PackUse[] | null {
    const slot = this.slotOf(seq);
    if (slot < 0) return null;
    return deletableFromIndex(this.bits[slot]!) ? this.use.uses(slot, seq) : null;
  }

  /** Whether any of the capture's parts lies in pack `no`. */
  usesPack(slot: number, no: number): boolean {
    return this.use.usesPack(slot, this.seqs[slot]!, no);
  }

  /** How many API and flow captures the team has (its /v1 email records). */
  teamRecordCount(team: string): number {
    const id = this.names.find(team);
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
    return this.names.value(this.teams[slot]!) ?? null;
  }
  sender(slot: number): string | null {
    return this.names.value(this.senders[slot]!) ?? null;
  }
  /** The capture's namespace (storage/namespace.ts), or null. */
  namespace(slot: number): string | null {
    return this.spaces.value(slot) ?? null;
  }
  /**
   * A test of whether a slot's search text (see searchText) holds every needle (UTF-8 bytes of
   * lowercased text), and `inSubject` within its subject (search-texts.ts matcher).
   */
  textMatcher(needles: readonly Uint8Array[], inSubject?: Uint8Array): (slot: number) => boolean {
    const senders = { values: () => this.names.values(), idOf: (slot: number) => this.senders[slot]!, field: searchField };
    // Names are never forgotten: their count changes when one is added.
    return this.search.matcher(needles, inSubject, senders, () => this.names.values().length);
  }
  /** The slot's search text, decoded (a string made for each call: for tests and tools, not scans). */
  text(slot: number): string {
    return this.search.text(slot);
  }
  /** Whether the slot's search text begins with `prefix` (UTF-8 bytes). */
  textStartsWith(slot: number, prefix: Uint8Array): boolean {
    return this.search.startsWith(slot, prefix);
  }
  flow(seq: number): FlowMark | undefined {
    return this.flowMarks.get(seq);
  }
  flowCaptures(): IterableIterator<[number, FlowMark]> {
    return this.flowMarks.entries();
  }
  /** The capture's search text changed (an SMTP message's parts were extracted: its snippet is known). */
  setText(record: MessageRecord): void {
    const slot = this.slotOf(record.seq);
    if (slot < 0) return;
    this.search.remove(slot);
    this.search.set(slot, record);
    this.bits[slot]! &= ~UNPARSED;
    this.search.tidy(this.used, (at) => !(this.bits[at]! & DEAD));
  }

  /** Slots of live captures, newest first, that pass `match`; stops when `visit` returns false. */
  scanNewestFirst(match: (slot: number) => boolean, visit: (slot: number) => boolean | undefined): void {
    newestFirst(this.bits, DEAD, this.used, match, visit);
  }

  /** Sequence numbers of live captures, oldest first, that pass `match`, at most `limit`. */
  oldest(limit: number, match: (slot: number) => boolean = () => true): number[] {
    return oldestFirst(this.seqs, this.bits, DEAD, this.used, limit, match);
  }

  /** When the oldest live capture was created (ms), or null when there is none. */
  oldestCreatedMs(): number | null {
    return oldestFirst(this.created, this.bits, DEAD, this.used, 1)[0] ?? null;
  }

  /** The newest live sequence number, or 0. */
  maxSeq(): number {
    for (let slot = this.used - 1; slot >= 0; slot--) if (!(this.bits[slot]! & DEAD)) return this.seqs[slot]!;
    return 0;
  }

  /**
   * The live captures with `lo <= seq < hi` for a checkpoint (disk/checkpoint.ts), which restoreRange
   * appends again; null when they are not `expected` (what the file holds live: a write not settled).
   * ROWS_PER_TURN at a time, `pause` between (a change in between is saveCheckpoint's to notice).
   */
  async serializeRange(lo: number, hi: number, expected: readonly number[], pause: () => Promise<void> = nextTurn): Promise<Parts | null> {
    const settled = () => liveRowsIn(this.seqs, this.used, { lo, hi }, (slot) => (this.bits[slot]! & DEAD) !== 0, expected) !== null;
    if (!settled()) return null;
    const rows = new MessageRowsWriter(expected);
    const row = emptyRow(); // filled for each capture in turn: nothing allocated per row
    for (let i = 0; i < expected.length; i++) {
      if (i > 0 && i % ROWS_PER_TURN === 0) await pause();
      const seq = expected[i]!;
      const from = this.slotOf(seq); // again after every pause: a compaction may have moved the rows
      if (from < 0) return null;
      row.created = this.created[from]!;
      row.bits = this.bits[from]!;
      row.team = this.names.value(this.teams[from]!);
      row.sender = this.names.value(this.senders[from]!);
      row.namespace = this.spaces.value(from);
      row.pack = this.use.packs[from]!;
      row.packBytes = this.use.bytes[from]!;
      row.packEnd = this.use.ends[from]!;
      row.spread = this.use.spreadOf(seq);
      // Where in its chunk: bytes that never change (a rewrite makes new chunks).
      this.search.saveTo(from, row);
      row.flow = this.flowMarks.get(seq);
      row.pendingAt = this.work.pendingAt.get(seq);
      rows.set(i, row);
    }
    // Still no capture in the range that the file does not hold (one added, a deletion not written yet).
    if (!settled()) return null;
    return rows.encode();
  }

  /** Bytes of the per-row columns, at their capacity (the search texts aside), for tests and the benchmark. */
  get columnBytes(): number {
    return this.columns.reduce((sum, column) => sum + column.byteLength, 0);
  }

  private get columns(): (Float64Array | Uint32Array | Uint16Array)[] {
    return [this.seqs, this.created, this.bits, this.teams, this.senders, ...this.use.columns, this.spaces.ids, ...this.search.columns];
  }

  /** Room for `rows` rows in all, and some to spare (start-up's restore: grown once, not step by step). */
  expect(rows: number): void {
    if (rows > this.seqs.length) this.grow(roomFor(rows, 1024));
  }

  /**
   * Appends the captures serializeRange wrote (in sequence order); returns the bytes they take in
   * each pack and how many have parts past where `packEnd` says their pack ends. Throws, having
   * changed nothing, on a range it cannot read (the caller reads the segment file instead).
   */
  restoreRange(data: Buffer, packEnd: (pack: number) => number): { packs: Map<number, number>; cutShort: number } {
    const { count: n, strings, seqs, created, bits, ids, use, lengths, extras, textAt } = decodeMessageRows(data);
    if (n > 0 && this.used > 0 && seqs[0]! <= this.seqs[this.used - 1]!) throw new Error('index range out of order');
    for (const [seq, mark] of extras.f) this.flowMarks.set(seq, mark);
    for (const [seq, at] of extras.p) this.work.pendingAt.set(seq, at);
    const spread = new Map(extras.s);
    const tally = new PackTally(packEnd);
    // Room for the range, then its texts in one copy per chunk (a copy per capture was half the
    // restore's time), and each of its strings interned once (-1: not yet).
    if (this.used + n > this.seqs.length) this.grow(Math.max(grownFrom(this.seqs.length), this.used + n));
    this.search.restore({ at: this.used, count: n }, data, textAt, lengths, (i) => ids[4 * i + 3]!, strings);
    const names = new Int32Array(strings.length).fill(-1);
    const spaces = new Int32Array(strings.length).fill(-1);
    const name = (at: number) => (names[at]! >= 0 ? names[at]! : (names[at] = this.nameId(strings[at] ?? null)));
    const space = (at: number) => (spaces[at]! >= 0 ? spaces[at]! : (spaces[at] = this.spaces.intern(strings[at])));
    for (let i = 0; i < n; i++) {
      const seq = seqs[i]!;
      const slot = this.append(seq);
      this.created[slot] = created[i]!;
      this.bits[slot] = bits[i]! & ~DEAD;
      this.teams[slot] = name(ids[4 * i]!);
      this.senders[slot] = name(ids[4 * i + 1]!);
      this.spaces.ids[slot] = space(ids[4 * i + 2]!);
      const uses = spread.get(seq);
      if (uses) {
        this.use.set(slot, seq, uses);
        tally.spread(uses);
      } else {
        // Nearly every capture: one pack or none, set with no array made for it.
        this.use.setOne(slot, use[3 * i]!, use[3 * i + 1]!, use[3 * i + 2]!);
        tally.add(use[3 * i]!, use[3 * i + 1]!, use[3 * i + 2]!);
      }
      this.added(slot);
    }
    return tally.done();
  }

  /** Its whole state for a start-up image (disk/image-file.ts): written at a clean stop, adopted at the next start. */
  image(out: ImageSection): void {
    const room = roomFor(this.used, 1024);
    for (const column of [this.seqs, this.created, this.bits, this.teams, this.senders]) out.put(column, this.used, room);
    const parts = [this.use.image(out, this.used, room), this.spaces.image(out, this.used, room), this.search.image(out, this.used, room)];
    const maps = [[...this.teamRecords], [...this.flowMarks], [...this.work.pendingAt]];
    out.values = { parts, maps, used: this.used, live: this.liveCount, names: this.names.values() };
  }

  /** What `image` saved (its arrays taken back in the order put), on an index that holds nothing yet: start-up. */
  adopt(from: ImageSection): void {
    const { parts, maps, used, live, names } = from.values as unknown as MessageImage;
    [this.seqs, this.created] = [from.take(Float64Array), from.take(Float64Array)];
    [this.bits, this.teams, this.senders] = [from.take(Uint16Array), from.take(Uint16Array), from.take(Uint16Array)];
    this.use.adopt(from, parts[0]);
    this.spaces.adopt(from, parts[1]);
    this.search.adopt(from, parts[2]);
    [this.used, this.liveCount, this.names] = [used, live, Interned.of(names, 1)];
    [this.teamRecords, this.flowMarks] = [new Map(maps[0]), new Map(maps[1])];
    this.work.adopt(maps[2], this.seqs, this.bits, used);
  }

  /** Drops dead slots (after many deletions). */
  private compact(): void {
    const to = keepRows(this.columns, this.used, (slot) => !(this.bits[slot]! & DEAD));
    this.used = to;
    this.grow(Math.max(1024, to * 2));
    // The namespaces and Froms no live capture has any more are forgotten (one per test adds up over a long run).
    this.spaces.reintern(this.used);
    this.search.compacted(this.used);
  }

  private grow(capacity: number): void {
    this.seqs = resized(this.seqs, this.used, capacity);
    this.created = resized(this.created, this.used, capacity);
    this.bits = resized(this.bits, this.used, capacity);
    this.teams = resized(this.teams, this.used, capacity);
    this.senders = resized(this.senders, this.used, capacity);
    this.use.resize(this.used, capacity);
    this.spaces.resize(this.used, capacity);
    this.search.resize(this.used, capacity);
  }

  private nameId(name: string | null): number {
    return name === null ? 0 : this.names.id(name);
  }
}
