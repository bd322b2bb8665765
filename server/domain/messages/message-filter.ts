import type { MessageIndex } from '../../storage/indexes/message-index.ts';
import { ADDRESS_MARK, unmarked } from '../../storage/indexes/search-texts.ts';
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
   * the body's text (its first 1,000 characters, kept with the capture: bodies are not read per search).
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
 * Compiles a filter once into a test of an index slot, so a scan over a million captures does no
 * parsing and no allocation per capture: the text tests are native substring searches over the
 * chunks of lowercased search texts (storage/search-texts.ts).
 */
export function compileFilter(filter: MessageFilter, index: MessageIndex): (slot: number) => boolean {
  const tests: ((slot: number) => boolean)[] = [];
  // Every text test is one substring search in the capture's search text: the address filter
  // looks for `\x01address\x01`, the words for themselves; the subject is one more, held to its field.
  const needles: Buffer[] = [];
  if (filter.recipient !== undefined) needles.push(Buffer.from(`${ADDRESS_MARK}${unmarked(emailKey(filter.recipient))}${ADDRESS_MARK}`, 'utf8'));
  if (filter.q !== undefined) {
    for (const word of unmarked(filter.q.toLowerCase()).split(/\s+/)) if (word !== '') needles.push(Buffer.from(word, 'utf8'));
  }
  const subject = filter.subject === undefined ? undefined : Buffer.from(unmarked(filter.subject.toLowerCase()), 'utf8');
  if (needles.length > 0 || (subject !== undefined && subject.length > 0)) tests.push(index.textMatcher(needles, subject));
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
  // The text test is the dearest: it goes last, after the typed-array tests have had their say.
  if (needles.length > 0 || subject !== undefined) tests.push(tests.shift()!);
  return (slot) => tests.every((test) => test(slot));
}

/** A /v1 list's filter: the team's API and flow records, optionally sent to one address (docs/api-contract.md §3). */
export function compileTeamFilter(team: string, recipient: string | undefined, index: MessageIndex): (slot: number) => boolean {
  const prefix = recipient === undefined ? undefined : Buffer.from(`${ADDRESS_MARK}${unmarked(emailKey(recipient))}${ADDRESS_MARK}`, 'utf8');
  return (slot) => index.team(slot) === team && index.source(slot) !== 'smtp' && (prefix === undefined || index.textStartsWith(slot, prefix));
}
