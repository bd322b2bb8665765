import { addressTag } from '../../storage/namespace.ts';
import type { RequestLogRecord, RequestSummary } from '../../storage/records.ts';
import { emailKey } from '../email-address.ts';
import type { MessageFilter } from './message-filter.ts';
import type { RequestLog, SmtpRefusal } from '../toolkit/request-log.ts';

/**
 * Sends through `/v1` that made no capture a wait or an expectation could see, yet would have
 * matched its filters (issue 27): a wait that times out says why the mail never came, from the
 * request log, instead of only "0 matched".
 */

/** What kind of refusal: the words a test's failure names it by. */
export const REFUSAL_KINDS = ['daily_limit', 'throttled', 'unauthorized', 'forbidden', 'invalid', 'not_found', 'blocked', 'fault', 'error'] as const;
type RefusalKind = (typeof REFUSAL_KINDS)[number];

export interface RefusedSend {
  /** The request log entry (`GET /api/requests`). */
  request: number;
  at: string;
  /** The status answered; null when a fault dropped the connection. */
  status: number | null;
  kind: RefusalKind;
  /** The answer's own words (`error`, `detail` or the field errors). */
  reason: string;
  sender: string | null;
  recipient: string | null;
  subject: string | null;
  /** The fault rule that answered, if one did. */
  fault: string | null;
}

export interface RefusedSends {
  /** How many matched among the newest refusals looked at. */
  total: number;
  /** The newest of them. */
  listed: RefusedSend[];
}

/** Refusals read from the log, newest first, at most (the log holds 10,000 entries by default). */
const LOOKED_AT = 500;
/** Refusals listed in an answer. */
const LISTED = 10;

const SEND_PATHS = new Set(['/v1/email/send/', '/v1/email/send']);

/**
 * The refused sends that would have matched the filter, newest first. `afterMs`: the creation
 * time of the capture named by the filter's `afterId` (null when it no longer exists: no refusal
 * can be placed after it then). A blocked send is a capture (status `failed`): it counts only
 * when the filter's status is what leaves it out.
 */
export async function refusedSends(log: RequestLog, filter: MessageFilter, afterMs: number | null): Promise<RefusedSends> {
  if (filter.source !== undefined && filter.source !== 'api') return { total: 0, listed: [] };
  if (filter.afterId !== undefined && afterMs === null) return { total: 0, listed: [] };
  const blockedCounts = filter.status !== undefined && filter.status !== 'failed';
  const candidate = (r: RequestSummary) =>
    r.method === 'POST' &&
    SEND_PATHS.has(r.path) &&
    (r.status === null || r.status >= 400 || (blockedCounts && r.status === 200)) &&
    (filter.sender === undefined || r.sender === filter.sender) &&
    (filter.team === undefined || r.team === filter.team);
  const matches: RefusedSend[] = [];
  for (const entry of await log.newest(candidate, LOOKED_AT)) {
    const refused = refusal(entry);
    if (refused !== null && matchesFilter(refused, bodyOf(entry), filter, afterMs)) matches.push(refused);
  }
  return { total: matches.length, listed: matches.slice(0, LISTED) };
}

/**
 * An SMTP command refused that could have carried the message a wait missed (its session's
 * sender, addresses and time fit the filters): the other half of a failed wait's explanation,
 * for applications that send over SMTP.
 */
export interface RefusedSmtp {
  at: string;
  /** The reply code and text the client got. */
  code: number;
  kind: RefusalKind;
  reason: string;
  stage: SmtpRefusal['stage'];
  sender: string | null;
  mail_from: string | null;
  recipients: string[];
}

/** Why smtp-server.ts refused (SmtpRejection), as the kinds refused sends are named by; a client limit's is `throttled`. */
const SMTP_KINDS: Record<string, RefusalKind> = {
  auth_failed: 'unauthorized',
  auth_required: 'unauthorized',
  tls_required: 'invalid',
  daily_limit: 'daily_limit',
  size: 'invalid',
  recipients: 'invalid',
  fault: 'fault',
  storage: 'error',
  error: 'error',
};

/**
 * The SMTP refusals (the newest 500, since the start) that could have carried a message the
 * filter matches, newest first. Matched on what the session had carried when it was refused:
 * its logged-in sender and team, its recipients (and namespace), its time. A command refused
 * before any RCPT TO (a failed AUTH, MAIL FROM without the required AUTH) could have been for
 * anyone: it fits every recipient. No message was read, so `subject` and `q` never leave one out.
 */
export function refusedSmtp(log: RequestLog, filter: MessageFilter, afterMs: number | null): { total: number; listed: RefusedSmtp[] } {
  if (filter.source !== undefined && filter.source !== 'smtp') return { total: 0, listed: [] };
  if (filter.afterId !== undefined && afterMs === null) return { total: 0, listed: [] };
  const listed: RefusedSmtp[] = [];
  let total = 0;
  for (const refusal of log.smtpRefusals()) {
    if (!smtpFits(refusal, filter, afterMs)) continue;
    total++;
    if (listed.length < LISTED) listed.push(refusedSmtpOf(refusal));
  }
  return { total, listed };
}

function smtpFits(refusal: SmtpRefusal, filter: MessageFilter, afterMs: number | null): boolean {
  const at = Date.parse(refusal.at);
  if (filter.since !== undefined && at < filter.since.getTime()) return false;
  if (afterMs !== null && at <= afterMs) return false;
  if (filter.sender !== undefined && refusal.sender !== filter.sender) return false;
  if (filter.team !== undefined && refusal.team !== filter.team) return false;
  if (refusal.recipients.length === 0) return true;
  if (filter.recipient !== undefined && !refusal.recipients.some((r) => emailKey(r) === emailKey(filter.recipient!))) return false;
  if (filter.namespace !== undefined && !refusal.recipients.some((r) => addressTag(r) === filter.namespace)) return false;
  return true;
}

function refusedSmtpOf(refusal: SmtpRefusal): RefusedSmtp {
  return {
    at: refusal.at,
    code: refusal.code,
    kind: (refusal.rejection !== null ? SMTP_KINDS[refusal.rejection] : undefined) ?? (refusal.code === 421 ? 'throttled' : 'error'),
    reason: refusal.reply,
    stage: refusal.stage,
    sender: refusal.sender,
    mail_from: refusal.mailFrom,
    recipients: refusal.recipients,
  };
}

const STAGE_WORDS: Record<RefusedSmtp['stage'], string> = { connect: 'the connection', auth: 'AUTH', mail: 'MAIL FROM', rcpt: 'RCPT TO', data: 'DATA' };

/**
 * One sentence on the SMTP refusals, for a failure's `detail` ("1 SMTP command that could have
 * carried it was refused: 535 at AUTH (5.7.8 Authentication failed: ...) at ...").
 */
export function smtpRefusalSentence({ total, listed }: { total: number; listed: readonly RefusedSmtp[] }): string {
  if (total === 0) return '';
  const shown = listed.slice(0, 3).map((r) => {
    const to = r.recipients.length === 0 ? '' : ` for ${r.recipients.join(', ')}`;
    return `${r.code} at ${STAGE_WORDS[r.stage]} (${r.reason})${to} at ${r.at}`;
  });
  const more = total > shown.length ? `; and ${total - shown.length} more` : '';
  const head = total === 1 ? '1 SMTP command that could have carried it was refused' : `${total} SMTP commands that could have carried it were refused`;
  return `${head}: ${shown.join('; ')}${more}.`;
}

function matchesFilter(refused: RefusedSend, body: Record<string, unknown>, filter: MessageFilter, afterMs: number | null): boolean {
  const at = Date.parse(refused.at);
  if (filter.since !== undefined && at < filter.since.getTime()) return false;
  if (afterMs !== null && at <= afterMs) return false;
  const recipient = refused.recipient;
  if (filter.recipient !== undefined && (recipient === null || emailKey(recipient) !== emailKey(filter.recipient))) return false;
  if (filter.namespace !== undefined && (recipient === null || addressTag(recipient) !== filter.namespace)) return false;
  if (filter.subject !== undefined && (refused.subject === null || !refused.subject.toLowerCase().includes(filter.subject.toLowerCase()))) return false;
  if (filter.q !== undefined) {
    const text = [refused.subject, recipient, refused.sender, body.plain_body, body.body]
      .filter((part): part is string => typeof part === 'string')
      .join('\n')
      .toLowerCase();
    for (const word of filter.q.toLowerCase().split(/\s+/)) if (word !== '' && !text.includes(word)) return false;
  }
  return true;
}

/** The entry as a refusal, or null for an answer that refused nothing (a 200 without an error). */
function refusal(entry: RequestLogRecord): RefusedSend | null {
  const answer = entry.responseBody;
  const fields = bodyOf(entry);
  const blocked = entry.status === 200;
  const errorText = typeof (answer as { error?: unknown } | null)?.error === 'string' ? (answer as { error: string }).error : null;
  if (blocked && errorText === null) return null;
  return {
    request: entry.seq,
    at: entry.at,
    status: entry.status,
    kind: kindOf(entry, errorText),
    reason: reasonOf(entry, errorText),
    sender: entry.sender,
    recipient: typeof fields.recipient === 'string' ? fields.recipient : null,
    subject: typeof fields.subject === 'string' ? fields.subject : null,
    fault: entry.fault,
  };
}

function kindOf(entry: RequestLogRecord, errorText: string | null): RefusalKind {
  if (entry.fault !== null) return 'fault';
  switch (entry.status) {
    case 200:
      return 'blocked';
    case 429:
      return errorText?.startsWith('Daily limit') ? 'daily_limit' : 'throttled';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 400:
    case 413:
    case 415:
      return 'invalid';
    default:
      return 'error';
  }
}

function reasonOf(entry: RequestLogRecord, errorText: string | null): string {
  if (entry.status === null) return `The connection was dropped by fault rule ${entry.fault ?? '?'}.`;
  if (errorText !== null) return errorText;
  const answer = entry.responseBody;
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return typeof answer === 'string' ? answer : `HTTP ${entry.status}`;
  const { detail } = answer as { detail?: unknown };
  if (typeof detail === 'string') return detail;
  // Field errors: {"body": ["This field is required."]}.
  return Object.entries(answer)
    .map(([field, messages]) => `${field}: ${Array.isArray(messages) ? messages.join(' ') : String(messages)}`)
    .join('; ');
}

function bodyOf(entry: RequestLogRecord): Record<string, unknown> {
  const body = entry.requestBody;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

const KIND_WORDS: Record<RefusalKind, string> = {
  daily_limit: 'daily limit',
  throttled: 'throttled',
  unauthorized: 'unknown API key',
  forbidden: 'team without flows',
  invalid: 'invalid request',
  not_found: 'wrong path',
  blocked: 'recipient blocked',
  fault: 'fault rule',
  error: 'server error',
};

/**
 * One sentence on the refusals, for a failure's `detail`: how many, and the newest three with
 * their status and reason ("1 send that would have matched was refused: 429 daily limit (Daily
 * limit of 100 emails has been reached), request 12, to ada@example.com at ...").
 */
export function refusalSentence({ total, listed }: RefusedSends): string {
  if (total === 0) return '';
  const shown = listed.slice(0, 3).map((r) => {
    const to = r.recipient === null ? '' : ` to ${r.recipient}`;
    return `${r.status ?? 'dropped'} ${KIND_WORDS[r.kind]} (${r.reason}), request ${r.request}${to} at ${r.at}`;
  });
  const more = total > shown.length ? `; and ${total - shown.length} more (GET /api/requests)` : '';
  const head = total === 1 ? '1 send that would have matched was refused' : `${total} sends that would have matched were refused`;
  return `${head}: ${shown.join('; ')}${more}.`;
}

/** A short, fixed-vocabulary summary of the kinds (no text from the request): "429 daily limit ×2, 401 unknown API key". */
export function refusalKinds(refused: readonly Pick<RefusedSend, 'status' | 'kind'>[]): string {
  const counts = new Map<string, number>();
  for (const r of refused) {
    const label = `${r.status ?? 'dropped'} ${KIND_WORDS[r.kind] ?? 'refused'}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, n]) => (n === 1 ? label : `${label} ×${n}`)).join(', ');
}
