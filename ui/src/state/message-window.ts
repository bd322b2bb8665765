import type { MessageFilter, MessageSummary, Page } from '../types.ts';

export type FetchPage = (filter: MessageFilter, offset: number, limit: number, signal: AbortSignal) => Promise<Page>;

/** Rows fetched beyond the visible ones on each side, so small scrolls need no request. */
const MARGIN = 40;
const MAX_LIMIT = 500;

/**
 * The slice of the capture list the UI holds: only the rows around what is visible are ever
 * requested (the server pages), so 100,000 captures cost what 100 do. Changes pushed by the
 * server mark it stale; refetches are coalesced to at most one every `minGapMs` and never
 * overlap, so a burst of a thousand sends makes a handful of requests.
 */
export class MessageWindow {
  total = 0;
  offset = 0;
  items: MessageSummary[] = [];
  loaded = false;
  error: Error | null = null;

  private filter: MessageFilter = {};
  private visible = { first: 0, count: 30 };
  private stale = false;
  private inFlight: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFetchAt = 0;
  private listeners = new Set<() => void>();

  constructor(
    private readonly fetchPage: FetchPage,
    private readonly minGapMs = 200,
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A new search or filter: start over, at once. */
  setFilter(filter: MessageFilter): void {
    this.filter = filter;
    this.items = [];
    this.offset = 0;
    this.loaded = false;
    this.inFlight?.abort();
    this.inFlight = null;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lastFetchAt = 0;
    this.schedule(0);
  }

  /** The rows on screen changed (scroll, resize); fetches only if they are not held. */
  setVisible(first: number, count: number): void {
    this.visible = { first, count };
    if (!this.covers(first, count)) this.schedule(0);
  }

  /** Something changed on the server: refetch what is shown, coalesced. */
  invalidate(): void {
    this.stale = true;
    this.schedule(this.minGapMs);
  }

  at(index: number): MessageSummary | undefined {
    return this.items[index - this.offset];
  }

  indexOf(id: string): number {
    const i = this.items.findIndex((m) => m.id === id);
    return i < 0 ? -1 : this.offset + i;
  }

  /**
   * A new capture the server pushed. With no filter and the top of the list held, it is put
   * in place with no request at all; otherwise the list is refetched (coalesced).
   */
  created(summary: MessageSummary, filtered: boolean): void {
    if (filtered || !this.loaded || this.offset !== 0 || this.inFlight || this.timer !== undefined) {
      this.invalidate();
      return;
    }
    if (this.items.some((m) => m.id === summary.id)) return;
    const keep = Math.max(this.items.length, Math.min(MAX_LIMIT, this.visible.count + 2 * MARGIN));
    this.items = [summary, ...this.items].slice(0, keep);
    this.total += 1;
    this.emit();
  }

  /** A summary the server pushed (read, status): updated in place, no request needed. */
  patch(summary: MessageSummary): void {
    const i = this.items.findIndex((m) => m.id === summary.id);
    if (i < 0) return;
    this.items = this.items.slice();
    this.items[i] = summary;
    this.emit();
  }

  /** Deleted captures leave the list at once; the refetch that follows fills the gap. */
  removeLocally(ids: readonly string[]): void {
    const gone = new Set(ids);
    const kept = this.items.filter((m) => !gone.has(m.id));
    if (kept.length === this.items.length) return;
    this.total = Math.max(0, this.total - (this.items.length - kept.length));
    this.items = kept;
    this.emit();
  }

  private covers(first: number, count: number): boolean {
    if (!this.loaded) return false;
    const end = Math.min(first + count, this.total);
    return first >= this.offset && end <= this.offset + this.items.length;
  }

  /** One request at a time; a request waits until `gapMs` after the previous one started. */
  private schedule(gapMs: number): void {
    if (this.inFlight || this.timer !== undefined) return;
    const wait = Math.max(0, this.lastFetchAt + gapMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, wait);
  }

  private async run(): Promise<void> {
    this.stale = false;
    const controller = new AbortController();
    this.inFlight = controller;
    this.lastFetchAt = Date.now();
    const offset = Math.max(0, this.visible.first - MARGIN);
    const limit = Math.min(MAX_LIMIT, this.visible.count + 2 * MARGIN);
    const filter = this.filter;
    try {
      const page = await this.fetchPage(filter, offset, limit, controller.signal);
      if (controller.signal.aborted) return;
      this.total = page.total;
      this.offset = page.offset;
      this.items = page.messages;
      this.loaded = true;
      this.error = null;
    } catch (error) {
      if (controller.signal.aborted) return;
      this.error = error as Error;
    } finally {
      if (this.inFlight === controller) this.inFlight = null;
    }
    this.emit();
    if (this.stale) this.schedule(this.minGapMs);
    else if (this.loaded && !this.covers(this.visible.first, this.visible.count) && this.visible.first < this.total) this.schedule(0);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
