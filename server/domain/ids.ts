import { randomUUID } from 'node:crypto';
import Sqids from 'sqids';

// Email ids and recipient sqids are short Sqids strings from per-installation counters
// (docs/api-contract.md §3, sandbox decision).
const sqids = new Sqids({ minLength: 3 });

export function encodeId(seq: number): string {
  return sqids.encode([seq]);
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
