import type { MessageRecord } from '../entities.ts';
import type { Events } from '../events.ts';
import type { MessageFilter } from './message-filter.ts';
import type { Messages } from './messages.ts';

/**
 * Resolves with the newest capture matching the filter: at once when one is stored, else as
 * soon as one is captured (the `message.created` event, no polling). Resolves null when the
 * timeout passes or the signal aborts (the client went away); the listener is removed either way.
 */
export async function waitForMessage(
  messages: Messages,
  events: Events,
  filter: MessageFilter,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<MessageRecord | null> {
  if (options.signal?.aborted) return null;
  const match = messages.matcher(filter);
  let arrived: MessageRecord | null = null;
  let wake: () => void = () => undefined;
  // Listening starts before the stored captures are looked at, so one that arrives while they
  // are read is not missed.
  const onCreated = (record: MessageRecord) => {
    if (arrived === null && match(record)) {
      arrived = record;
      wake();
    }
  };
  events.on('message.created', onCreated);
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => wake();
  try {
    const present = (await messages.page(filter, 0, 1)).items[0];
    if (present) return present;
    if (arrived !== null || options.signal?.aborted) return arrived;
    await new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    return arrived;
  } finally {
    events.off('message.created', onCreated);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
