import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesce } from '../../ui/src/state/coalesce.ts';
import { MessageWindow } from '../../ui/src/state/message-window.ts';
import type { MessageFilter, MessageSummary, Page } from '../../ui/src/types.ts';

/** A server of `count` captures, newest first, answering after `delayMs`; it records every request. */
function fakeServer(count: number, delayMs = 20) {
  const requests: { filter: MessageFilter; offset: number; limit: number }[] = [];
  let total = count;
  const summary = (seq: number): MessageSummary => ({
    id: `m${seq}`,
    source: 'api',
    team: 'acme',
    sender: 'acme-main',
    from: 'a@example.com',
    recipient: 'b@example.com',
    to: ['b@example.com'],
    cc: [],
    bcc: [],
    subject: `Subject ${seq}`,
    snippet: '',
    status: 'delivered',
    blocked: false,
    redirected: false,
    read: false,
    attachment_count: 0,
    created_at: '2026-11-22T00:00:00Z',
    namespace: null,
    blocked_note: null,
  });
  const fetchPage = async (filter: MessageFilter, offset: number, limit: number, signal: AbortSignal): Promise<Page> => {
    requests.push({ filter, offset, limit });
    // The answer takes `delayMs` on the fake clock.
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (signal.aborted) throw new Error('aborted');
    const messages = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => summary(total - offset - i));
    return { total, offset, limit, messages };
  };
  return {
    fetchPage,
    requests,
    add: (n = 1) => (total += n),
    summary,
    get total() {
      return total;
    },
  };
}

// The sandbox clock of these tests: the fake server's delays, the window's coalescing timer and
// Date.now all run on Vitest's fake timers, so a test advances time instead of sleeping.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('MessageWindow (the list state of the inbox UI)', () => {
  it('asks only for the rows around the visible ones, whatever the total', async () => {
    const server = fakeServer(100_000);
    const list = new MessageWindow(server.fetchPage);
    list.setVisible(0, 12);
    list.setFilter({});
    await vi.waitFor(() => expect(list.loaded).toBe(true));
    expect(list.total).toBe(100_000);
    expect(server.requests).toEqual([{ filter: {}, offset: 0, limit: 92 }]);

    // A small scroll stays inside what is held: no request, even once every timer has run.
    list.setVisible(30, 12);
    await vi.runAllTimersAsync();
    expect(server.requests).toHaveLength(1);

    // A jump to the middle fetches the page around it.
    list.setVisible(50_000, 12);
    await vi.waitFor(() => expect(list.at(50_000)).toBeDefined());
    expect(server.requests.at(-1)).toEqual({ filter: {}, offset: 49_960, limit: 92 });
    expect(list.at(50_000)!.id).toBe(`m${100_000 - 50_000}`);
  });

  it('turns a thousand change notices into a handful of refetches, never two at once', async () => {
    const server = fakeServer(10, 30);
    let inFlight = 0;
    let most = 0;
    const original = server.fetchPage;
    const tracked = new MessageWindow(async (...args) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        return await original(...args);
      } finally {
        inFlight -= 1;
      }
    }, 200);
    tracked.setFilter({ q: 'x' });
    await vi.waitFor(() => expect(tracked.loaded).toBe(true));
    const before = server.requests.length;
    const started = Date.now();
    for (let i = 0; i < 1000; i++) {
      server.add();
      tracked.invalidate();
      if (i % 100 === 0) await vi.advanceTimersByTimeAsync(100);
    }
    await vi.waitFor(() => expect(tracked.total).toBe(server.total), 3000);
    const elapsed = Date.now() - started;
    const refetches = server.requests.length - before;
    expect(refetches).toBeGreaterThanOrEqual(1);
    expect(refetches).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 1);
    expect(most).toBe(1);
  });

  it('puts a pushed capture in place without a request when unfiltered at the top, else refetches', async () => {
    const server = fakeServer(5);
    const list = new MessageWindow(server.fetchPage, 50);
    list.setFilter({});
    await vi.waitFor(() => expect(list.loaded).toBe(true));
    const requests = server.requests.length;
    server.add();
    list.created(server.summary(6), false);
    expect(list.total).toBe(6);
    expect(list.at(0)!.id).toBe('m6');
    list.created(server.summary(6), false);
    expect(list.total).toBe(6);
    expect(server.requests.length).toBe(requests);

    server.add();
    list.created(server.summary(7), true);
    await vi.waitFor(() => expect(list.total).toBe(7));
    expect(server.requests.length).toBe(requests + 1);
  });

  it('drops the answer of a superseded filter', async () => {
    const server = fakeServer(50, 40);
    // The first search's answer (one match) arrives after the second search started.
    const list = new MessageWindow((filter, offset, limit, signal) =>
      server
        .fetchPage(filter, offset, limit, signal)
        .then((page) => (filter.q === 'first' ? { ...page, total: 1, messages: page.messages.slice(0, 1) } : page)),
    );
    list.setFilter({ q: 'first' });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    list.setFilter({ q: 'second' });
    await vi.waitFor(() => expect(list.loaded).toBe(true));
    // Every answer still on its way (the first search's) arrives before the check.
    await vi.runAllTimersAsync();
    expect(server.requests.map((r) => r.filter.q)).toEqual(['first', 'second']);
    expect(list.total).toBe(50);
  });
});

describe('coalesce', () => {
  it('runs a task triggered many times at most once per gap, plus once after', async () => {
    // The task and the trigger loop take time on the fake clock, not the wall clock.
    let runs = 0;
    const trigger = coalesce(async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }, 100);
    for (let t = 0; t < 450; t += 5) {
      trigger();
      await vi.advanceTimersByTimeAsync(5);
    }
    // The run asked for during the last one, and nothing after it.
    await vi.runAllTimersAsync();
    expect(runs).toBeGreaterThanOrEqual(4);
    expect(runs).toBeLessThanOrEqual(7);
  });
});
