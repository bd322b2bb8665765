import { describe, expect, it } from 'vitest';
import { coalesce } from '../../ui/src/state/coalesce.ts';
import { MessageWindow } from '../../ui/src/state/message-window.ts';
import type { MessageFilter, MessageSummary, Page } from '../../ui/src/types.ts';
import { waitFor } from '../support/poll.ts';

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
  });
  const fetchPage = async (filter: MessageFilter, offset: number, limit: number, signal: AbortSignal): Promise<Page> => {
    requests.push({ filter, offset, limit });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (signal.aborted) throw new Error('aborted');
    const messages = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => summary(total - offset - i));
    return { total, offset, limit, messages };
  };
  return { fetchPage, requests, add: (n = 1) => (total += n), summary, get total() { return total; } };
}

describe('MessageWindow (the list state of the inbox UI)', () => {
  it('asks only for the rows around the visible ones, whatever the total', async () => {
    const server = fakeServer(100_000);
    const list = new MessageWindow(server.fetchPage);
    list.setVisible(0, 12);
    list.setFilter({});
    await waitFor(async () => (list.loaded ? true : undefined));
    expect(list.total).toBe(100_000);
    expect(server.requests).toEqual([{ filter: {}, offset: 0, limit: 92 }]);

    // A small scroll stays inside what is held: no request.
    list.setVisible(30, 12);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toHaveLength(1);

    // A jump to the middle fetches the page around it.
    list.setVisible(50_000, 12);
    await waitFor(async () => (list.at(50_000) ? true : undefined));
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
    await waitFor(async () => (tracked.loaded ? true : undefined));
    const before = server.requests.length;
    const started = Date.now();
    for (let i = 0; i < 1000; i++) {
      server.add();
      tracked.invalidate();
      if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await waitFor(async () => (tracked.total === server.total ? true : undefined), 3000);
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
    await waitFor(async () => (list.loaded ? true : undefined));
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
    await waitFor(async () => (list.total === 7 ? true : undefined));
    expect(server.requests.length).toBe(requests + 1);
  });

  it('drops the answer of a superseded filter', async () => {
    const server = fakeServer(50, 40);
    // The first search's answer (one match) arrives after the second search started.
    const list = new MessageWindow((filter, offset, limit, signal) =>
      server.fetchPage(filter, offset, limit, signal).then((page) => (filter.q === 'first' ? { ...page, total: 1, messages: page.messages.slice(0, 1) } : page)),
    );
    list.setFilter({ q: 'first' });
    await waitFor(async () => (server.requests.length === 1 ? true : undefined));
    list.setFilter({ q: 'second' });
    await waitFor(async () => (list.loaded ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(server.requests.map((r) => r.filter.q)).toEqual(['first', 'second']);
    expect(list.total).toBe(50);
  });
});

describe('coalesce', () => {
  it('runs a task triggered many times at most once per gap, plus once after', async () => {
    let runs = 0;
    const trigger = coalesce(async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }, 100);
    const started = Date.now();
    while (Date.now() - started < 450) {
      trigger();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(runs).toBeGreaterThanOrEqual(4);
    expect(runs).toBeLessThanOrEqual(7);
  });
});
