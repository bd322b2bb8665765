import type { MessageRecord } from '../entities.ts';
import type { DeletedCapture, Events } from '../events.ts';
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

/** How many matching captures an answer lists, at most (newest first); `count` is always the full number. */
const EXPECT_LISTED = 50;

export interface ExpectOptions {
  /** How many captures must match: 0 means none may. */
  count: number;
  /** How long to wait for them (ms). */
  withinMs: number;
  /**
   * Once exactly `count` match (count >= 1), how long no further one may arrive before the
   * answer (ms); at most `withinMs`.
   */
  settleMs: number;
  signal?: AbortSignal;
}

/**
 * `exact`: exactly `count` matched (and none more within the settle time; for count 0, none by
 * the end); `more`: more than `count` matched (answered as soon as it happens); `fewer`: fewer
 * than `count` by the end of the wait. `records` are the matches, newest first, at most
 * EXPECT_LISTED of them.
 */
export interface ExpectResult {
  outcome: 'exact' | 'more' | 'fewer';
  count: number;
  records: MessageRecord[];
}

/**
 * Expects exactly `count` captures matching the filter (GET /api/messages/expect): the captures
 * stored already and those that arrive while it waits (the `message.created` event, as wait-for
 * does; no polling) are counted once each, and those deleted meanwhile no longer count.
 * - More than `count` match: answered at once (`more`).
 * - Exactly `count` (>= 1) match: answered `settleMs` after that, unless another one arrives
 *   meanwhile (then `more`); the settle time runs past `withinMs` when it started before it.
 * - By the end of `withinMs`, fewer match: `fewer`; `count` 0 and none matched: `exact`.
 * Resolves null when the signal aborts (the client went away); every listener and timer is
 * removed either way.
 */
export async function expectMessages(messages: Messages, events: Events, filter: MessageFilter, options: ExpectOptions): Promise<ExpectResult | null> {
  const { count, signal } = options;
  const withinMs = Math.max(0, options.withinMs);
  const settleMs = Math.min(Math.max(0, options.settleMs), withinMs);
  if (signal?.aborted) return null;
  const match = messages.matcher(filter);
  const matched = new Set<number>();
  let decided: ExpectResult['outcome'] | null = null;
  let withinOver = false;
  let settleTimer: NodeJS.Timeout | undefined;
  let wake: () => void = () => undefined;

  const decide = (outcome: ExpectResult['outcome']) => {
    if (decided !== null) return;
    decided = outcome;
    wake();
  };
  /** What the matches so far mean, after each change. */
  const review = () => {
    if (matched.size > count) return decide('more');
    if (count === 0) return withinOver ? decide('exact') : undefined;
    if (matched.size === count) {
      if (settleTimer === undefined) settleTimer = setTimeout(() => decide('exact'), settleMs);
      return;
    }
    // Fewer (again, after a deletion): the settle time starts over once there are enough.
    clearTimeout(settleTimer);
    settleTimer = undefined;
    if (withinOver) decide('fewer');
  };

  // Listening starts before the stored captures are looked at, so one that arrives meanwhile
  // is not missed (and one seen both ways counts once).
  const onCreated = (record: MessageRecord) => {
    if (!match(record) || matched.has(record.seq)) return;
    matched.add(record.seq);
    review();
  };
  const onDeleted = (removed: DeletedCapture[]) => {
    for (const record of removed) matched.delete(record.seq);
    review();
  };
  const onCleared = () => {
    matched.clear();
    review();
  };
  const onAbort = () => wake();
  events.on('message.created', onCreated);
  events.on('message.deleted', onDeleted);
  events.on('message.cleared', onCleared);
  let withinTimer: NodeJS.Timeout | undefined;
  try {
    for (const seq of messages.matching(filter)) matched.add(seq);
    review();
    if (decided === null && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (decided !== null) return resolve();
        withinTimer = setTimeout(() => {
          withinOver = true;
          review();
        }, withinMs);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    if (decided === null) return null;
    // What was decided on, before anything else can arrive.
    const outcome: ExpectResult['outcome'] = decided;
    const total = matched.size;
    const newest = [...matched].sort((a, b) => b - a).slice(0, EXPECT_LISTED);
    return { outcome, count: total, records: await messages.records(newest) };
  } finally {
    events.off('message.created', onCreated);
    events.off('message.deleted', onDeleted);
    events.off('message.cleared', onCleared);
    clearTimeout(withinTimer);
    clearTimeout(settleTimer);
    signal?.removeEventListener('abort', onAbort);
  }
}
