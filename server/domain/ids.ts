import { randomUUID } from 'node:crypto';
import Sqids from 'sqids';

// Email ids and recipient sqids are short Sqids strings from per-installation counters
// (docs/api-contract.md §3, sandbox decision).
const MIN_LENGTH = 3;
const sqids = new Sqids({ minLength: MIN_LENGTH });

/**
 * Sqids' encoding of one number, as `sqids.encode([n])` gives it, without its per-call work
 * (two sqids a send, a sixth of ingest's CPU in a profile at the retention limit): the rotated,
 * reversed alphabet of each offset is made once, and the blocklist is a set of words looked up
 * by the id's substrings rather than every word tested against the id. Ids shorter than the
 * minimum length (padded by shuffles) and ids the blocklist refuses (re-encoded) are left to
 * Sqids itself; test/domain/ids.test.ts holds the two equal.
 */
const { alphabet, blocklist } = sqids as unknown as { alphabet: string; blocklist: Set<string> };
const reversedAt = Array.from({ length: alphabet.length }, (_, offset) => [...(alphabet.slice(offset) + alphabet.slice(0, offset))].reverse().join(''));
const longestWord = Math.max(...[...blocklist].map((word) => word.length));

export function encodeId(seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 0) return sqids.encode([seq]);
  const size = alphabet.length;
  const offset = (alphabet.charCodeAt(seq % size) + 1) % size;
  const digits = reversedAt[offset]!;
  let body = '';
  let rest = seq;
  do {
    body = digits[1 + (rest % (size - 1))]! + body;
    rest = Math.floor(rest / (size - 1));
  } while (rest > 0);
  const id = alphabet[offset]! + body;
  return id.length < MIN_LENGTH || mayBeBlocked(id) ? sqids.encode([seq]) : id;
}

/** Sqids' isBlockedId for an id of MIN_LENGTH or more characters (true also when unsure). */
function mayBeBlocked(id: string): boolean {
  const lower = id.toLowerCase();
  if (lower.length <= 3) return blocklist.has(lower);
  // Words of 3 letters match an id that long only whole; longer ones: anywhere, or at either
  // end when they hold a digit.
  for (let length = 4; length <= Math.min(lower.length, longestWord); length++) {
    for (let at = 0; at + length <= lower.length; at++) {
      const word = lower.slice(at, at + length);
      if (!blocklist.has(word)) continue;
      if (!/\d/.test(word) || at === 0 || at + length === lower.length) return true;
    }
  }
  return false;
}

/** The counter value behind an id, or null when the string is not one of ours. */
export function decodeId(id: string): number | null {
  if (!/^[A-Za-z0-9]{1,32}$/.test(id)) return null;
  const [seq, ...rest] = sqids.decode(id);
  // A long string decodes to a number past 2^53, which the encoder refuses (it throws).
  if (seq === undefined || rest.length > 0 || !Number.isSafeInteger(seq) || encodeId(seq) !== id) return null;
  return seq;
}

/** An SES-style message id: 0100 + 12 hex digits of the time + a UUID + -000000. */
export function sesMessageId(at: Date): string {
  return `0100${at.getTime().toString(16).padStart(12, '0')}-${randomUUID()}-000000`;
}
