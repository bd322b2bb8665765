import { sandbox } from '../sandbox.ts';
import type { MessageSummary } from '../types.ts';
import { remembered } from './remembered.ts';

const PICKED_KEY = 'pigeonhole.comparePicked';

/** The capture picked to compare with the next one opened ("Pick for compare"). */
export const comparePick = {
  get: (): string | null => remembered.get(PICKED_KEY),
  set: (id: string | null): void => (id === null ? remembered.remove(PICKED_KEY) : remembered.set(PICKED_KEY, id)),
};

/** Same sender: the sender id for API and flow captures, the From address for SMTP ones. */
function sameSender(a: MessageSummary, b: MessageSummary): boolean {
  return a.sender !== null || b.sender !== null ? a.sender === b.sender : a.from.toLowerCase() === b.from.toLowerCase();
}

/**
 * The capture's previous version: the newest earlier capture with the same subject from the same
 * sender, or null. The list is searched newest first, a page at a time, by subject.
 */
export async function previousVersion(message: MessageSummary, signal?: AbortSignal): Promise<MessageSummary | null> {
  const filter = { subject: message.subject, ...(message.sender ? { sender: message.sender } : {}) };
  const pageSize = 100;
  let seen = false;
  for (let offset = 0; ; offset += pageSize) {
    const page = await sandbox.list({ ...filter, limit: pageSize, offset, signal });
    for (const item of page.messages) {
      if (item.id === message.id) {
        seen = true;
        continue;
      }
      const earlier = seen || item.created_at < message.created_at;
      if (earlier && item.subject === message.subject && sameSender(item, message)) return item;
    }
    if (offset + pageSize >= page.total || page.messages.length === 0) return null;
  }
}
