import type { RequestLogRecord, RequestSummary } from '../../storage/records.ts';
import { requestSummary, type Store } from '../../storage/store.ts';
import type { PageOf } from '../paging.ts';
import { globMatcher } from '../patterns/glob.ts';

/**
 * The /v1 request log: every request and its response, so a developer sees why their
 * application's call failed. Bounded: past `cap` entries the oldest are removed. An entry is
 * not accepted data: it is written by its own group commit right after the response, never making a /v1
 * response wait, and a crash may lose the last few entries.
 */

const DEFAULT_REQUEST_LOG_CAP = 10_000;
/**
 * Entries past the cap are forgotten at once but leave the array of summaries this many at a
 * time: removing the first of 10,000 moved the other 9,999, on every request at the cap.
 */
const STALE_SPLICE = 1024;

export interface RequestLogFilter {
  method?: string;
  /** An exact path, or a glob with `*` ("/v1/email/*"). */
  path?: string;
  /** An exact status ("429") or a class ("4xx"); "dropped" for dropped connections. */
  status?: string;
  sender?: string;
  team?: string;
  /** Only entries with a fault rule. */
  fault?: boolean;
}

export type NewRequestLogEntry = Omit<RequestLogRecord, 'seq'>;

export class RequestLog {
  private timer: NodeJS.Immediate | null = null;
  /** The first summaries, already forgotten (past the cap), still in the array: see STALE_SPLICE. */
  private stale = 0;
  private readonly listeners = new Set<(entry: RequestLogRecord) => void>();

  constructor(
    private readonly store: Store,
    private readonly cap = DEFAULT_REQUEST_LOG_CAP,
  ) {
    // A lowered cap (or entries a crash kept beyond it) applies from the start.
    this.trim();
  }

  get size(): number {
    return this.store.requests.summaries.length - this.stale;
  }

  record(entry: NewRequestLogEntry): RequestLogRecord {
    // The counter is saved with meta.json whenever that is written, and recovered from the
    // segments at start-up; the log itself never makes meta.json be written.
    const counters = this.store.meta.counters;
    const seq = (counters.request = (counters.request ?? 0) + 1);
    const record: RequestLogRecord = { seq, ...entry };
    // Only the fields the filters read stay in memory; the entry itself is read back from its
    // segment when listed. Not accepted data: dropped, not retried, if its write fails.
    this.store.requests.log.put(record, { volatile: true });
    this.store.requests.summaries.push(requestSummary(record));
    this.trim();
    this.scheduleFlush();
    for (const listener of this.listeners) listener(record);
    return record;
  }

  /** Newest first, with how many matched in all. */
  async page(filter: RequestLogFilter, offset: number, limit: number): Promise<PageOf<RequestLogRecord>> {
    const match = compileRequestFilter(filter);
    const summaries = this.store.requests.summaries;
    const seqs: number[] = [];
    let total = 0;
    for (let i = summaries.length - 1; i >= this.stale; i--) {
      if (!match(summaries[i]!)) continue;
      if (total >= offset && seqs.length < limit) seqs.push(summaries[i]!.seq);
      total++;
    }
    const items = await Promise.all(seqs.map((seq) => this.store.requests.log.read(seq)));
    return { total, items: items.filter((r): r is RequestLogRecord => r !== undefined) };
  }

  /** The newest entries whose summary passes `test`, newest first, at most `limit` of them. */
  async newest(test: (summary: RequestSummary) => boolean, limit: number): Promise<RequestLogRecord[]> {
    const summaries = this.store.requests.summaries;
    const seqs: number[] = [];
    for (let i = summaries.length - 1; i >= this.stale && seqs.length < limit; i--) if (test(summaries[i]!)) seqs.push(summaries[i]!.seq);
    const items = await Promise.all(seqs.map((seq) => this.store.requests.log.read(seq)));
    return items.filter((r): r is RequestLogRecord => r !== undefined);
  }

  /** Removes every entry, or those of the given senders; returns how many. */
  async clear(senders?: ReadonlySet<string>): Promise<number> {
    this.dropStale(0);
    const { log, summaries } = this.store.requests;
    const doomed = senders === undefined ? summaries.length : summaries.filter((r) => r.sender !== null && senders.has(r.sender)).length;
    if (senders === undefined) {
      log.clear();
      summaries.length = 0;
    } else {
      const kept = summaries.filter((r) => !(r.sender !== null && senders.has(r.sender)));
      for (const r of summaries) if (r.sender !== null && senders.has(r.sender)) log.delete(r.seq);
      summaries.splice(0, summaries.length, ...kept);
    }
    await this.store.flushRequests();
    return doomed;
  }

  /** Drops the oldest entries beyond the cap (no tombstones: a segment goes once it is empty). */
  private trim(): void {
    const { log, summaries } = this.store.requests;
    const excess = summaries.length - this.stale - this.cap;
    if (excess <= 0) return;
    for (let i = this.stale; i < this.stale + excess; i++) log.forget(summaries[i]!.seq);
    this.stale += excess;
    this.dropStale(STALE_SPLICE);
  }

  /** Takes the forgotten summaries out of the array once there are at least `atLeast`. */
  private dropStale(atLeast: number): void {
    if (this.stale === 0 || this.stale < atLeast) return;
    this.store.requests.summaries.splice(0, this.stale);
    this.stale = 0;
  }

  /** Called with every new entry (the inbox UI's live view). Returns an unsubscribe function. */
  onRecorded(listener: (entry: RequestLogRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
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
      void this.store.flushRequests().catch(() => undefined);
    });
    this.timer.unref();
  }
}

function compileRequestFilter(filter: RequestLogFilter): (r: RequestSummary) => boolean {
  const tests: ((r: RequestSummary) => boolean)[] = [];
  if (filter.method !== undefined) {
    const method = filter.method.toUpperCase();
    tests.push((r) => r.method === method);
  }
  if (filter.path !== undefined) {
    // A glob matched in linear time (a RegExp of many `*` backtracked for minutes, issue 19).
    const pattern = globMatcher(filter.path, { ignoreCase: false, questionMark: false });
    tests.push((r) => pattern.test(r.path));
  }
  if (filter.status !== undefined) {
    const status = filter.status.toLowerCase();
    if (status === 'dropped') tests.push((r) => r.status === null);
    else if (/^[1-5]xx$/.test(status)) tests.push((r) => r.status !== null && Math.floor(r.status / 100) === Number(status[0]));
    else tests.push((r) => r.status === Number(status));
  }
  if (filter.sender !== undefined) tests.push((r) => r.sender === filter.sender);
  if (filter.team !== undefined) tests.push((r) => r.team === filter.team);
  if (filter.fault !== undefined) tests.push((r) => (r.fault !== null) === filter.fault);
  return (r) => tests.every((test) => test(r));
}

const MASK = '********';
/** Longest string kept whole in a logged body; longer ones are cut with a note of their length. */
const MAX_LOGGED_STRING = 4096;
const SECRET_FIELD = /^(?:api[_-]?key|apikey|encryption[_-]?key|password|secret|token|authorization)$/i;

/**
 * A copy of a request or response body for the log: fields named like secrets (api_key,
 * password, ...) masked, long strings cut, depth bounded.
 */
export function maskBody(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_LOGGED_STRING ? value : `${value.slice(0, MAX_LOGGED_STRING)}… (${value.length} characters, truncated)`;
  }
  if (value === null || typeof value !== 'object') return value ?? null;
  if (depth >= 8) return '…';
  if (Array.isArray(value)) return value.slice(0, 200).map((item) => maskBody(item, depth + 1));
  // No prototype: a field named `__proto__` is a field like any other, kept as it was sent
  // (on a plain object the assignment would set the prototype and drop the field).
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) out[key] = SECRET_FIELD.test(key) ? MASK : maskBody(item, depth + 1);
  return out;
}

/** Request headers for the log: the API key and the encryption key never appear. */
export function maskHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const lower = name.toLowerCase();
    if (lower === 'authorization') out[lower] = value.replace(/^(\s*\S+\s+).*$/s, `$1${MASK}`).replace(/^\S+$/, MASK);
    else if (lower === 'encryption-key' || lower === 'cookie' || SECRET_FIELD.test(lower)) out[lower] = MASK;
    else out[lower] = value.length > 1024 ? `${value.slice(0, 1024)}…` : value;
  }
  return out;
}
