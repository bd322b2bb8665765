import type { RequestLogRecord, RequestSummary } from '../../storage/records.ts';
import type { Store } from '../../storage/store.ts';
import type { PageOf } from '../paging.ts';
import { globMatcher } from '../patterns/glob.ts';

/**
 * The /v1 request log: every request and its response, so a developer sees why their
 * application's call failed. Bounded: past `cap` entries the oldest are removed. An entry is
 * not accepted data: it is written by its own group commit right after the response, never making a /v1
 * response wait, and a crash may lose the last few entries.
 */

const DEFAULT_REQUEST_LOG_CAP = 10_000;

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

/**
 * An SMTP command the sandbox refused (smtp/smtp-server.ts): what the client was told, and what
 * its session had carried by then. Not a request log entry (SMTP is not HTTP): the newest
 * SMTP_REFUSALS_KEPT are kept in memory, for a failed wait to name (messages/refused-sends.ts).
 */
export interface SmtpRefusal {
  /** Sandbox clock, ISO 8601. */
  at: string;
  /** The reply's code (535, 452, ...) and its text ("5.7.8 Authentication failed: ..."). */
  code: number;
  reply: string;
  /** Why, in smtp-server.ts's words (SmtpRejection: `auth_failed`, `size`, ...); null for a client limit's. */
  rejection: string | null;
  stage: 'connect' | 'auth' | 'mail' | 'rcpt' | 'data';
  /** The logged-in sender and its team; null before (or without) AUTH. */
  sender: string | null;
  team: string | null;
  /** MAIL FROM, once given (the refused one too). */
  mailFrom: string | null;
  /** The RCPT TO addresses by then (the refused one too; the first SMTP_REFUSAL_RECIPIENTS); empty when refused before any. */
  recipients: string[];
}

/** SMTP refusals kept (the newest): a failed wait looks at as many refused /v1 sends. */
const SMTP_REFUSALS_KEPT = 500;
/**
 * Recipients kept per refusal. A session may name 1,000 (--smtp-max-recipients): 500 refusals
 * of such sessions, kept whole, would hold some 40 MB that one client chose to make us hold.
 */
export const SMTP_REFUSAL_RECIPIENTS = 100;

export class RequestLog {
  private readonly listeners = new Set<(entry: RequestLogRecord) => void>();
  /** Oldest first. */
  private smtp: SmtpRefusal[] = [];

  constructor(
    private readonly store: Store,
    private readonly cap = DEFAULT_REQUEST_LOG_CAP,
  ) {
    // A lowered cap (or entries a crash kept beyond it) applies from the start.
    store.requests.keepNewest(cap);
  }

  get size(): number {
    return this.store.requests.size;
  }

  /** Logs a request: queued on the log's own group commit, written right after this turn of the event loop. */
  record(entry: NewRequestLogEntry): RequestLogRecord {
    const record = this.store.requests.add(entry);
    this.store.requests.keepNewest(this.cap);
    for (const listener of this.listeners) listener(record);
    return record;
  }

  /** Newest first, with how many matched in all. */
  async page(filter: RequestLogFilter, offset: number, limit: number): Promise<PageOf<RequestLogRecord>> {
    const match = compileRequestFilter(filter);
    const seqs: number[] = [];
    let total = 0;
    for (const summary of this.store.requests.newestFirst()) {
      if (!match(summary)) continue;
      if (total >= offset && seqs.length < limit) seqs.push(summary.seq);
      total++;
    }
    const items = await Promise.all(seqs.map((seq) => this.store.requests.read(seq)));
    return { total, items: items.filter((r): r is RequestLogRecord => r !== undefined) };
  }

  /** The newest entries whose summary passes `test`, newest first, at most `limit` of them. */
  async newest(test: (summary: RequestSummary) => boolean, limit: number): Promise<RequestLogRecord[]> {
    const seqs: number[] = [];
    for (const summary of this.store.requests.newestFirst()) {
      if (seqs.length >= limit) break;
      if (test(summary)) seqs.push(summary.seq);
    }
    const items = await Promise.all(seqs.map((seq) => this.store.requests.read(seq)));
    return items.filter((r): r is RequestLogRecord => r !== undefined);
  }

  /** Removes every entry, or those of the given senders; resolves with how many once that is on disk. The SMTP refusals go too (not counted). */
  clear(senders?: ReadonlySet<string>): Promise<number> {
    this.smtp = senders === undefined ? [] : this.smtp.filter((refusal) => refusal.sender === null || !senders.has(refusal.sender));
    return this.store.requests.remove(senders);
  }

  /** Notes an SMTP refusal (in memory: the newest SMTP_REFUSALS_KEPT). */
  noteSmtpRefusal(refusal: SmtpRefusal): void {
    this.smtp.push(
      refusal.recipients.length > SMTP_REFUSAL_RECIPIENTS ? { ...refusal, recipients: refusal.recipients.slice(0, SMTP_REFUSAL_RECIPIENTS) } : refusal,
    );
    if (this.smtp.length > SMTP_REFUSALS_KEPT) this.smtp.shift();
  }

  /** The SMTP refusals kept, newest first. */
  smtpRefusals(): SmtpRefusal[] {
    return this.smtp.slice().reverse();
  }

  /** Called with every new entry (the inbox UI's live view). Returns an unsubscribe function. */
  onRecorded(listener: (entry: RequestLogRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
