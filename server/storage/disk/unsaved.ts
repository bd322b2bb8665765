import type { StorageError } from '../errors.ts';

/** What the store still held in memory, unwritten, when its last write at shutdown failed. */
export interface Unsaved {
  /** meta.json's fields that differ from the file. */
  meta: string[];
  /** blocks.json's fields that differ from the file. */
  blocks: string[];
  /** Records with changes not written, per collection. */
  messages: number;
  recipients: number;
  subscriptions: number;
  requests: number;
  /** Pack bytes queued (compaction's copies: their originals stay where they were). */
  packBytes: number;
}

const META_FIELDS: Record<string, string> = {
  counters: 'the id counters (start-up derives them again)',
  daily: "today's send counts (start-up counts them again)",
  clockOffsetMs: "the sandbox clock's offset",
  version: "the layout's version",
  segmentSize: 'the segment size (start-up reads it from the segment files again)',
};

/**
 * The one line a shutdown prints when the store could not write what it still held: which
 * state, and why. Every write acknowledged (a 200, an SMTP 250) was on disk before its answer,
 * so what is named here is only state nobody was answered for.
 */
export function unsavedNote(error: StorageError, unsaved: Unsaved): string {
  const items = [
    ...unsaved.meta.map((field) => META_FIELDS[field] ?? `meta.json's ${field}`),
    ...(unsaved.blocks.length > 0 ? ['changes to the block list'] : []),
    ...count(unsaved.messages, 'change to a capture (its delivery status or parsed parts)', 'changes to captures (delivery statuses, parsed parts)'),
    ...count(unsaved.recipients, 'change to a recipient', 'changes to recipients'),
    ...count(unsaved.subscriptions, 'change to a flow subscription', 'changes to flow subscriptions'),
    ...count(unsaved.requests, 'request-log entry', 'request-log entries'),
    ...(unsaved.packBytes > 0 ? [`${unsaved.packBytes} bytes copied by compaction (the originals are kept)`] : []),
  ];
  const what = items.length > 0 ? list(items) : 'only the removal of emptied files';
  return `pigeonhole: stopped without saving ${what}, because ${error.reason} (${error.path}); nothing that was acknowledged is lost`;
}

function count(n: number, one: string, many: string): string[] {
  if (n === 0) return [];
  return [n === 1 ? `1 ${one}` : `${n} ${many}`];
}

function list(items: string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
