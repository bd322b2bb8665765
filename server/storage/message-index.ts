import { recordNamespace } from './namespace.ts';
import { DELIVERY_STATUSES, type DeliveryStatus, type FlowMark, type MessageRecord, type Source } from './records.ts';

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

/** Separators in the search text: before every address, and between the other fields. */
export const ADDRESS_MARK = '\u0001';
export const FIELD_MARK = '\u0002';

/**
 * Every capture, as compact as the inbox's lists, filters, search and wait-for allow
 * (docs/storage.md: memory per capture is only what those need). Fixed-size fields live in
 * typed arrays, one slot per capture in sequence order; the only object per capture is its
 * search text: the addresses, subject, From, sender id and body snippet, lowercased, in one
 * string. Everything else (names, flags, attachments, where the bodies are) is read from the
 * segment files when a capture is shown.
 */
export class MessageIndex {
  private seqs = new Float64Array(1024);
  private created = new Float64Array(1024);
  private bits = new Uint16Array(1024);
  private teams = new Uint16Array(1024);
  private senders = new Uint16Array(1024);
  private packs = new Uint32Array(1024);
  /** Each capture's namespace, interned (many per run: one per test); 0 is none. */
  private spaces = new Uint32Array(1024);
  private texts: string[] = [];
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

  get size(): number {
    return this.liveCount;
  }

  /** Adds a capture; captures arrive in sequence order. */
  add(record: MessageRecord, pack: number): void {
    if (this.used > 0 && record.seq <= this.seqs[this.used - 1]!) throw new Error(`capture ${record.seq} arrived out of order`);
    if (this.used === this.seqs.length) this.grow(this.seqs.length * 2);
    const slot = this.used++;
    this.seqs[slot] = record.seq;
    this.created[slot] = Date.parse(record.createdAt);
    this.bits[slot] =
      SOURCES.indexOf(record.source) |
      (STATUSES.indexOf(record.status) << STATUS_SHIFT) |
      (record.blocked ? BLOCKED : 0) |
      (record.redirected ? REDIRECTED : 0) |
      (record.read ? READ : 0);
    this.teams[slot] = this.nameId(record.team);
    this.senders[slot] = this.nameId(record.sender);
    this.packs[slot] = pack;
    this.spaces[slot] = this.spaceId(recordNamespace(record));
    this.texts[slot] = searchText(record);
    if (record.flow) this.flowMarks.set(record.seq, record.flow);
    if (record.source !== 'smtp') this.teamRecords.set(this.teams[slot]!, (this.teamRecords.get(this.teams[slot]!) ?? 0) + 1);
    if (this.loading) {
      // What start-up must schedule again; afterwards the domain tracks these itself.
      if (record.status === 'pending' && record.deliverAt !== null) this.deliveries.set(record.seq, Date.parse(record.deliverAt));
      if (record.unparsed) this.unparsed.push(record.seq);
    }
    this.liveCount++;
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
    if ((this.bits[slot]! & SOURCE_MASK) !== SOURCES.indexOf('smtp'))
      this.teamRecords.set(this.teams[slot]!, (this.teamRecords.get(this.teams[slot]!) ?? 1) - 1);
    this.texts[slot] = '';
    this.flowMarks.delete(seq);
    this.liveCount--;
    if (this.used - this.liveCount > Math.max(4096, this.liveCount)) this.compact();
    return true;
  }

  clear(): void {
    this.used = 0;
    this.liveCount = 0;
    this.texts = [];
    this.flowMarks.clear();
    this.teamRecords.clear();
    this.deliveries.clear();
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

  setPack(seq: number, pack: number): void {
    const slot = this.slotOf(seq);
    if (slot >= 0) this.packs[slot] = pack;
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
  pack(slot: number): number {
    return this.packs[slot]!;
  }
  /** The capture's namespace (storage/namespace.ts), or null. */
  namespace(slot: number): string | null {
    return this.spaceNames[this.spaces[slot]!]!;
  }
  /** The lowercased search text (see searchText). */
  text(slot: number): string {
    return this.texts[slot]!;
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
    if (slot >= 0) this.texts[slot] = text;
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

  /** Drops dead slots (after many deletions). */
  private compact(): void {
    let to = 0;
    for (let from = 0; from < this.used; from++) {
      if (this.bits[from]! & DEAD) continue;
      this.seqs[to] = this.seqs[from]!;
      this.created[to] = this.created[from]!;
      this.bits[to] = this.bits[from]!;
      this.teams[to] = this.teams[from]!;
      this.senders[to] = this.senders[from]!;
      this.packs[to] = this.packs[from]!;
      this.spaces[to] = this.spaces[from]!;
      this.texts[to] = this.texts[from]!;
      to++;
    }
    this.used = to;
    this.texts.length = to;
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
    const copy = <A extends Float64Array | Uint16Array | Uint32Array>(from: A, make: (n: number) => A): A => {
      const next = make(capacity);
      next.set(from.subarray(0, Math.min(this.used, capacity)));
      return next;
    };
    this.seqs = copy(this.seqs, (n) => new Float64Array(n));
    this.created = copy(this.created, (n) => new Float64Array(n));
    this.bits = copy(this.bits, (n) => new Uint16Array(n));
    this.teams = copy(this.teams, (n) => new Uint16Array(n));
    this.senders = copy(this.senders, (n) => new Uint16Array(n));
    this.packs = copy(this.packs, (n) => new Uint32Array(n));
    this.spaces = copy(this.spaces, (n) => new Uint32Array(n));
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
 * `\x01recipient\x01to...\x01cc...\x01bcc...\x01\x02subject\x02from\x02sender\x02snippet`.
 * The original recipient comes first, so "sent to" is a prefix test; any address is
 * `\x01address\x01`.
 */
export function searchText(record: MessageRecord): string {
  const addresses = [record.recipient, ...record.to, ...record.cc, ...record.bcc].map((a) => unmarked(a.trim())).join(ADDRESS_MARK);
  const fields = [record.subject, record.from, record.sender ?? '', record.snippet ?? ''].map(unmarked);
  return `${ADDRESS_MARK}${addresses}${ADDRESS_MARK}${FIELD_MARK}${fields.join(FIELD_MARK)}`.toLowerCase();
}

/**
 * The text with the separators written as spaces: a sender may put them in a subject or an
 * address, where they would end the field early. Filters read their own text the same way.
 */
export function unmarked(text: string): string {
  return text.replaceAll(ADDRESS_MARK, ' ').replaceAll(FIELD_MARK, ' ');
}
