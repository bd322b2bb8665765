import type { MessageRecord } from './records.ts';

/**
 * Namespaces (docs/testing.md, "Namespaces"): the one definition of the rule, used when a capture
 * is stored and when a record stored before namespaces existed is loaded.
 *
 * - An address is tagged when its local part has a `+` followed by 1–64 letters, digits, `-`
 *   or `_` up to the `@` (`ada+t7f3k@example.com`: tag `t7f3k`). The tag is everything after
 *   the first `+`; anything else there (`a+b+c@`, `a+b.c@`, `a+@`) tags nothing. Tags compare
 *   without regard to case and are kept lower-case. A quoted local part is read without its
 *   quotes: `"a+t7"@example.com` is the mailbox `a+t7@example.com` (RFC 5321 §4.1.2), and a
 *   mail header's parser drops the quotes before this rule sees the address anyway.
 * - A capture's namespace is the tag of the first tagged address in To, then Cc, then Bcc, as
 *   the sender addressed them (before a Development Mode redirect); null when none is tagged.
 *   A capture belongs to one namespace at most, so a count per namespace is exact.
 */
const TAG = /^[a-z0-9_-]{1,64}$/i;

/** The tag of one address, lower-case, or null. */
export function addressTag(address: string): string | null {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return null;
  const local = unquoted(trimmed.slice(0, at));
  const plus = local.indexOf('+');
  if (plus < 0) return null;
  const tag = local.slice(plus + 1);
  return TAG.test(tag) ? tag.toLowerCase() : null;
}

/** A local part as the mailbox reads: a quoted string without its quotes and backslash escapes. */
function unquoted(local: string): string {
  if (local.length < 2 || !local.startsWith('"') || !local.endsWith('"')) return local;
  return local.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** The namespace of a capture addressed to these addresses, in To, Cc, Bcc order. */
export function namespaceOf(addresses: readonly string[]): string | null {
  for (const address of addresses) {
    const tag = addressTag(address);
    if (tag !== null) return tag;
  }
  return null;
}

/** A namespace as a filter or a reset names it: a valid tag, lower-cased; null if it is not one. */
export function namespaceName(value: string): string | null {
  return TAG.test(value) ? value.toLowerCase() : null;
}

/**
 * The record's namespace: as stored, or for a record stored before namespaces existed, derived
 * from its addresses (the original ones when Development Mode redirected it).
 */
export function recordNamespace(record: MessageRecord): string | null {
  if (record.namespace !== undefined) return record.namespace;
  const addressed = record.redirected && record.originalTo ? record.originalTo : [...record.to, ...record.cc, ...record.bcc, record.recipient];
  return namespaceOf(addressed);
}
