import type { Flusher } from './disk/flusher.ts';
import type { JsonFile } from './disk/json-file.ts';
import type { BlockRecord, BlocksData, MetaData, RequestLogRecord, RequestSummary, WorkbenchData } from './records.ts';
import type { CheckpointRows } from './segments/segment-checkpoints.ts';
import type { SegmentLog } from './segments/segment-log.ts';

/**
 * The small repositories the store offers the domain (docs/architecture.md, "Storage"): each
 * change queues its own write, which the `store.update` it is made in puts on disk. None of
 * them hands out the documents it keeps for changing in place.
 */

/** Blocked recipients as stored (blocks.json): those added since start-up and the configured ones lifted. */
export interface BlocksRepository {
  readonly blocks: readonly Readonly<BlockRecord>[];
  readonly lifted: readonly Readonly<{ team: string; email: string }>[];
  add(block: BlockRecord): void;
  /** Both lists replaced whole (a block lifted, a reset). */
  replace(next: BlocksData): void;
}

/** The daily counts of the daily limit (meta.json), per sender, of one UTC day of the sandbox clock. */
export interface DailyCounts {
  /** The sender's count on `day` (0 when the stored counts are of another day). */
  used(sender: string, day: string): number;
  /**
   * Counts one send of the sender on `day` unless `limit` is reached (null then); returns the
   * undo that gives the count back. Written lazily, within a second: start-up counts the day's
   * captures again and keeps the larger figure, so a crash never hands a sender extra sends.
   */
  reserve(sender: string, day: string, limit: number | null): (() => void) | null;
  /**
   * Starts the senders' counts over on `day` (every sender's when undefined): the captures made
   * so far no longer count, at start-up either. Returns how many had a count.
   */
  startOver(senders: ReadonlySet<string> | undefined, day: string): number;
  /** A function that puts every count back as it is now (the undo of an update that starts counts over). */
  restorer(): () => void;
  /** Forgets the senders' counts (every sender's when undefined); returns how many there were. */
  remove(senders: ReadonlySet<string> | undefined): number;
  /** The last capture (seq) made when the sender's count of `day` was started over (0: never). */
  startedOverAfter(sender: string, day: string): number;
  /** Start-up: each sender's count of `day` is at least what its captures say. */
  atLeast(day: string, counted: Readonly<Record<string, number>>): void;
}

/** The sandbox clock's offset from real time (meta.json). */
export interface ClockOffset {
  readonly ms: number;
  set(ms: number): void;
}

/**
 * Id counters (meta.json): a number handed out is never handed out again, stored or not. Written
 * lazily, as the capture counter is (docs/storage.md, Files): every file that holds a record
 * names its id, so start-up derives the counters again; a deletion or a compaction that takes a
 * file's last mention of an id away writes meta.json first.
 */
export interface IdCounters {
  next(kind: 'recipient' | 'subscription'): number;
}

/**
 * The /v1 request log as stored: a summary per entry in memory (oldest first), the entries in
 * segment files, with its own group commit (entries are not accepted data: a /v1 response never
 * waits for them, and a write that fails drops them).
 */
export interface RequestLogStore {
  readonly size: number;
  /** The summaries, newest first. */
  newestFirst(): Iterable<RequestSummary>;
  read(seq: number): Promise<RequestLogRecord | undefined>;
  /** Adds an entry (its seq is the next one); written at the end of this turn of the event loop. */
  add(entry: Omit<RequestLogRecord, 'seq'>): RequestLogRecord;
  /** Forgets the oldest entries beyond `cap` (no tombstones: a segment goes once it is empty). */
  keepNewest(cap: number): void;
  /** Removes every entry, or those of the given senders; resolves with how many once that is on disk. */
  remove(senders?: ReadonlySet<string>): Promise<number>;
}

/**
 * The designers' workbench (account template versions, sample data): replaced whole (inside
 * `update`, whose undo puts the old value back); written with that unit of work.
 */
export interface WorkbenchStore {
  readonly data: Readonly<WorkbenchData>;
  replace(next: WorkbenchData): void;
}

export function blocksRepository(file: JsonFile<BlocksData>): BlocksRepository {
  return {
    get blocks() {
      return file.data.blocks;
    },
    get lifted() {
      return file.data.lifted ?? [];
    },
    add(block) {
      file.data.blocks.push({ ...block });
      file.touch();
    },
    replace(next) {
      file.data = { blocks: next.blocks.map((b) => ({ ...b })), lifted: (next.lifted ?? []).map((l) => ({ ...l })) };
      file.touch();
    },
  };
}

export function dailyCounts(meta: JsonFile<MetaData>): DailyCounts {
  /** The counts of `day`: another day's start over. */
  const of = (day: string) => {
    const daily = meta.data.daily;
    if (daily.day !== day) {
      daily.day = day;
      daily.bySender = {};
      daily.resetAfter = {};
    }
    return daily;
  };
  return {
    used: (sender, day) => (meta.data.daily.day === day ? (meta.data.daily.bySender[sender] ?? 0) : 0),
    reserve(sender, day, limit) {
      const daily = of(day);
      const used = daily.bySender[sender] ?? 0;
      if (limit !== null && used >= limit) return null;
      daily.bySender[sender] = used + 1;
      meta.touchLazily();
      return () => {
        const now = meta.data.daily;
        if (now.day === day && (now.bySender[sender] ?? 0) > 0) now.bySender[sender]! -= 1;
      };
    },
    startOver(senders, day) {
      const daily = of(day);
      const resetAfter = (daily.resetAfter ??= {});
      // Captures are numbered in the order they are made: those up to this one no longer count.
      const last = meta.data.counters.message;
      let counted = 0;
      for (const sender of senders ?? new Set([...Object.keys(daily.bySender), ...Object.keys(resetAfter)])) {
        if ((daily.bySender[sender] ?? 0) > 0) counted++;
        delete daily.bySender[sender];
        resetAfter[sender] = last;
      }
      meta.touch();
      return counted;
    },
    restorer() {
      const before = structuredClone(meta.data.daily);
      return () => {
        meta.data.daily = before;
        meta.touch();
      };
    },
    remove(senders) {
      const counts = meta.data.daily.bySender;
      let removed = 0;
      for (const sender of Object.keys(counts)) {
        if (senders !== undefined && !senders.has(sender)) continue;
        removed++;
        delete counts[sender];
      }
      meta.touch();
      return removed;
    },
    startedOverAfter: (sender, day) => (meta.data.daily.day === day ? (meta.data.daily.resetAfter?.[sender] ?? 0) : 0),
    atLeast(day, counted) {
      const daily = of(day);
      for (const [sender, n] of Object.entries(counted)) daily.bySender[sender] = Math.max(daily.bySender[sender] ?? 0, n);
    },
  };
}

export function clockOffset(meta: JsonFile<MetaData>): ClockOffset {
  return {
    get ms() {
      return meta.data.clockOffsetMs ?? 0;
    },
    set(ms) {
      meta.data.clockOffsetMs = ms;
      meta.touch();
    },
  };
}

export function idCounters(meta: JsonFile<MetaData>): IdCounters {
  return {
    next(kind) {
      const seq = ++meta.data.counters[kind];
      meta.touchLazily();
      return seq;
    },
  };
}

export function workbenchStore(file: JsonFile<WorkbenchData>): WorkbenchStore {
  return {
    get data() {
      return file.data;
    },
    replace(next) {
      file.data = next;
      file.touch();
    },
  };
}

/** Entries past the cap are forgotten at once but leave the array of summaries this many at a time. */
const STALE_SPLICE = 1024;

/** The fields of a request log entry its filters read, kept in memory. */
export function requestSummary(record: RequestLogRecord): RequestSummary {
  const { seq, method, path, sender, team, status, fault } = record;
  return { seq, method, path, sender, team, status, fault };
}

/**
 * The request log's rows as its checkpoints hold them (segment-checkpoints.ts CheckpointRows):
 * the summaries of a segment's live entries as JSON, so that a start reads some 100 KB per 1,024
 * entries instead of parsing each entry's whole line (bodies and headers: 11 MB for the 10,000
 * the log keeps). `summaries` is the array start-up fills and the repository then owns, in
 * sequence order; entries past the cap stay in it a while, but their lines are not live.
 */
export function requestLogRows(summaries: RequestSummary[]): CheckpointRows {
  const at = (seq: number) => {
    let lo = 0;
    let hi = summaries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (summaries[mid]!.seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo < summaries.length && summaries[lo]!.seq === seq ? summaries[lo]! : undefined;
  };
  return {
    save: (_lo, _hi, live) => {
      const rows: RequestSummary[] = [];
      for (const seq of live) {
        const summary = at(seq);
        if (!summary) return null; // a line whose entry is not in memory (yet): nothing consistent
        rows.push(summary);
      }
      return [Buffer.from(JSON.stringify(rows.map(({ seq, method, path, sender, team, status, fault }) => [seq, method, path, sender, team, status, fault])))];
    },
    restore: (data) => {
      const rows = JSON.parse(data.toString('utf8')) as unknown;
      if (!Array.isArray(rows)) throw new Error('request log rows are not a list');
      let last = summaries.length > 0 ? summaries[summaries.length - 1]!.seq : 0;
      const restored = rows.map((row: unknown) => {
        if (!Array.isArray(row) || row.length !== 7 || !Number.isSafeInteger(row[0]) || row[0] <= last) throw new Error('request log rows out of order');
        const [seq, method, path, sender, team, status, fault] = row as [number, string, string, string | null, string | null, number | null, string | null];
        last = seq;
        return { seq, method, path, sender, team, status, fault };
      });
      summaries.push(...restored);
    },
  };
}

/** The request log over its segment log and its own flusher (`summaries`: as start-up read them). */
export class RequestLogRepository implements RequestLogStore {
  private timer: NodeJS.Immediate | null = null;
  /**
   * The first summaries, already forgotten (past the cap), still in the array: removing the
   * first of 10,000 moved the other 9,999, on every request at the cap.
   */
  private stale = 0;

  constructor(
    private readonly log: SegmentLog<RequestLogRecord>,
    private readonly summaries: RequestSummary[],
    private readonly meta: JsonFile<MetaData>,
    private readonly flusher: Flusher,
  ) {}

  get size(): number {
    return this.summaries.length - this.stale;
  }

  *newestFirst(): Iterable<RequestSummary> {
    for (let i = this.summaries.length - 1; i >= this.stale; i--) yield this.summaries[i]!;
  }

  read(seq: number): Promise<RequestLogRecord | undefined> {
    return this.log.read(seq);
  }

  add(entry: Omit<RequestLogRecord, 'seq'>): RequestLogRecord {
    // The counter is saved with meta.json whenever that is written, and recovered from the
    // segments at start-up; the log itself never makes meta.json be written.
    const counters = this.meta.data.counters;
    const seq = (counters.request = (counters.request ?? 0) + 1);
    const record: RequestLogRecord = { seq, ...entry };
    // Only the fields the filters read stay in memory. Not accepted data: dropped, not retried, if its write fails.
    this.log.put(record, { volatile: true });
    this.summaries.push(requestSummary(record));
    this.scheduleFlush();
    return record;
  }

  keepNewest(cap: number): void {
    const excess = this.summaries.length - this.stale - cap;
    if (excess <= 0) return;
    for (let i = this.stale; i < this.stale + excess; i++) this.log.forget(this.summaries[i]!.seq);
    this.stale += excess;
    this.dropStale(STALE_SPLICE);
  }

  async remove(senders?: ReadonlySet<string>): Promise<number> {
    this.dropStale(0);
    const doomed = (r: RequestSummary) => senders === undefined || (r.sender !== null && senders.has(r.sender));
    const count = this.summaries.filter(doomed).length;
    if (senders === undefined) this.log.clear();
    else for (const r of this.summaries) if (doomed(r)) this.log.delete(r.seq);
    const kept = this.summaries.filter((r) => !doomed(r));
    this.summaries.splice(0, this.summaries.length, ...kept);
    await this.flusher.flush();
    return count;
  }

  /** Stops the pending write's timer (the store's close writes what is queued). */
  close(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
  }

  /** Takes the forgotten summaries out of the array once there are at least `atLeast`. */
  private dropStale(atLeast: number): void {
    if (this.stale === 0 || this.stale < atLeast) return;
    this.summaries.splice(0, this.stale);
    this.stale = 0;
  }

  /**
   * Writes the entries of this turn of the event loop together, right after the responses went
   * out (its own group commit: while one write runs, the next collects). Written at once rather
   * than after a delay, an entry never lives long enough in memory to reach the old generation.
   */
  private scheduleFlush(): void {
    if (this.timer) return;
    this.timer = setImmediate(() => {
      this.timer = null;
      void this.flusher.flush().catch(() => undefined);
    });
    this.timer.unref();
  }
}
