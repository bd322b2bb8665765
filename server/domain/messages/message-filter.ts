import { ADDRESS_MARK, FIELD_MARK, type MessageIndex } from '../../storage/message-index.ts';
import type { DeliveryStatus, Source } from '../entities.ts';
import { emailKey } from '../email-address.ts';
import { decodeId } from '../ids.ts';

/**
 * One filter for every list of captures: the inbox UI's search and filters, the sandbox API's
 * search, latest and wait-for. All fields are optional and combine with AND.
 */
export interface MessageFilter {
  /** Any address on the capture: the original recipient, To, Cc or Bcc. */
  recipient?: string;
  /**
   * Case-insensitive words, each found in the subject, an address, the From, the sender id or
   * the start of the body text (the capture's snippet: bodies are not read per search).
   */
  q?: string;
  /** Case-insensitive substring of the subject. */
  subject?: string;
  /** Sender id (an API key is resolved to its sender at the edge). */
  sender?: string;
  team?: string;
  source?: Source;
  status?: DeliveryStatus;
  blocked?: boolean;
  redirected?: boolean;
  read?: boolean;
  /** Created at or after this instant. */
  since?: Date;
  /** Captured after the capture with this id. */
  afterId?: string;
  /** The capture's namespace (a `+tag` of its addresses, storage/namespace.ts), lower-case. */
  namespace?: string;
}

/**
 * Compiles a filter once into a test of an index slot, so a scan over 100k captures does no
 * parsing and no allocation: every text test is a substring search in the capture's one
 * lowercased search text (storage/message-index.ts).
 */
export function compileFilter(filter: MessageFilter, index: MessageIndex): (slot: number) => boolean {
  const tests: ((slot: number) => boolean)[] = [];
  if (filter.recipient !== undefined) {
    const wanted = `${ADDRESS_MARK}${emailKey(filter.recipient)}${ADDRESS_MARK}`;
    tests.push((slot) => index.text(slot).includes(wanted));
  }
  if (filter.q !== undefined) {
    const words = filter.q.toLowerCase().replaceAll(ADDRESS_MARK, ' ').replaceAll(FIELD_MARK, ' ').split(/\s+/).filter(Boolean);
    if (words.length > 0) tests.push((slot) => words.every((word) => index.text(slot).includes(word)));
  }
  if (filter.subject !== undefined) {
    const wanted = filter.subject.toLowerCase();
    tests.push((slot) => subjectOf(index.text(slot)).includes(wanted));
  }
  if (filter.namespace !== undefined) {
    const wanted = filter.namespace;
    tests.push((slot) => index.namespace(slot) === wanted);
  }
  if (filter.sender !== undefined) tests.push((slot) => index.sender(slot) === filter.sender);
  if (filter.team !== undefined) tests.push((slot) => index.team(slot) === filter.team);
  if (filter.source !== undefined) tests.push((slot) => index.source(slot) === filter.source);
  if (filter.status !== undefined) tests.push((slot) => index.status(slot) === filter.status);
  if (filter.blocked !== undefined) tests.push((slot) => index.blocked(slot) === filter.blocked);
  if (filter.redirected !== undefined) tests.push((slot) => index.redirected(slot) === filter.redirected);
  if (filter.read !== undefined) tests.push((slot) => index.read(slot) === filter.read);
  if (filter.since !== undefined) {
    const since = filter.since.getTime();
    tests.push((slot) => index.createdMs(slot) >= since);
  }
  if (filter.afterId !== undefined) {
    const after = decodeId(filter.afterId) ?? Number.MAX_SAFE_INTEGER;
    tests.push((slot) => index.seq(slot) > after);
  }
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0]!;
  return (slot) => tests.every((test) => test(slot));
}

/** A /v1 list's filter: the team's API and flow records, optionally sent to one address (docs/api-contract.md §3). */
export function compileTeamFilter(team: string, recipient: string | undefined, index: MessageIndex): (slot: number) => boolean {
  const prefix = recipient === undefined ? undefined : `${ADDRESS_MARK}${emailKey(recipient)}${ADDRESS_MARK}`;
  return (slot) => index.team(slot) === team && index.source(slot) !== 'smtp' && (prefix === undefined || index.text(slot).startsWith(prefix));
}

function subjectOf(text: string): string {
  const start = text.indexOf(FIELD_MARK) + 1;
  return text.slice(start, text.indexOf(FIELD_MARK, start));
}
