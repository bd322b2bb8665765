import type { MessageRecord } from '../storage/records.ts';
import type { Events } from './events.ts';
import type { MessageFilter } from './message-filter.ts';
import type { Messages } from './messages.ts';

/**
 * Resolves with the newest capture matching the filter: at once when one is stored, else as
 * soon as one is captured (the `message.created` event, no polling). Resolves null when the
 * timeout passes or the signal aborts (the client went away); the listener is removed either way.
 */
export function waitForMessage(
  messages: Messages,
  events: Events,
  filter: MessageFilter,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<MessageRecord | null> {
  if (options.signal?.aborted) return Promise.resolve(null);
  const match = messages.matcher(filter);
  return new Promise((resolve) => {
    let settled = false;
    const done = (record: MessageRecord | null) => {
      if (settled) return;
      settled = true;
      events.off('message.created', onCreated);
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(record);
    };
    // Listening starts before the stored captures are looked at, so one that arrives while
    // they are read is not missed.
    const onCreated = (record: MessageRecord) => {
      if (match(record)) done(record);
    };
    const onAbort = () => done(null);
    const timer = setTimeout(() => done(null), options.timeoutMs);
    events.on('message.created', onCreated);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    messages.page(filter, 0, 1).then(
      (page) => {
        if (page.items[0]) done(page.items[0]);
      },
      () => undefined,
    );
  });
}
