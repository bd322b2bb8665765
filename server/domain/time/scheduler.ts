import type { SandboxClock } from './clock.ts';

/** What the scheduler runs: a flow subscription's next step, or a capture's delivery outcome. */
export type JobKind = 'flow' | 'delivery';

type Handler = (key: number) => Promise<void>;

interface Entry {
  due: number;
  /** Insertion order: jobs due at the same instant run in the order they were scheduled. */
  order: number;
  kind: JobKind;
  key: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
/** Jobs run side by side at most; their disk writes share flushes. */
const BATCH = 64;

/**
 * Everything the domain does at an instant of the sandbox clock, in one due-ordered queue
 * (a binary heap; rescheduling or cancelling leaves the old entry to be skipped) with one
 * unref'd timer for the earliest due time, however many jobs are waiting.
 *
 * Runs are serialised: the timer, a job that is due at once, and the clock's advance all take
 * turns in one chain, so a job never runs twice at the same time and an advance sees every
 * job in due order (jobs due in the same second run side by side). `settle()` lets a caller
 * wait until the chain is idle. Handlers must never wait on `settle()` themselves (they run
 * inside the chain).
 */
export class Scheduler {
  private readonly heap: Entry[] = [];
  private readonly live = new Map<string, Entry>();
  private readonly handlers = new Map<JobKind, Handler>();
  private order = 0;
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Number.NaN;
  private tail: Promise<void> = Promise.resolve();
  private drainQueued = false;
  private closed = false;

  constructor(
    private readonly clock: SandboxClock,
    private readonly onError: (message: string, error: unknown) => void,
  ) {}

  handle(kind: JobKind, handler: Handler): void {
    this.handlers.set(kind, handler);
  }

  /** Runs the job at `due` (sandbox milliseconds), replacing any earlier schedule of it. */
  schedule(kind: JobKind, key: number, due: number): void {
    const entry: Entry = { due, order: ++this.order, kind, key };
    this.live.set(id(kind, key), entry);
    push(this.heap, entry);
    if (this.heap.length > 2 * this.live.size + 1024) this.compact();
    if (due <= this.clock.now().getTime()) this.kick();
    else if (!(due >= this.armedFor)) this.arm();
  }

  cancel(kind: JobKind, key: number): void {
    this.live.delete(id(kind, key));
  }

  /** Forgets every job of a kind. */
  cancelAll(kind: JobKind): void {
    for (const [key, entry] of this.live) if (entry.kind === kind) this.live.delete(key);
  }

  get size(): number {
    return this.live.size;
  }

  /** Runs, in the chain, everything due now. */
  runDue(): Promise<void> {
    return this.exclusive(async () => {
      this.drainQueued = false;
      await this.runThrough(() => this.clock.now().getTime(), false);
    });
  }

  /**
   * Runs `op` in the chain, after whatever is running or queued. The clock control uses it to
   * move time and run what fell due with nothing else interleaved.
   */
  exclusive<T>(op: () => Promise<T>): Promise<T> {
    const result = this.tail.then(op);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /**
   * Inside `exclusive`: runs every job due at or before `target`, in due order, with the clock
   * pinned at each job's instant (to the second: at the latest instant of the jobs due in that
   * second, never earlier than it already reads), then lets it tick.
   */
  async runUntil(target: number): Promise<void> {
    await this.runThrough(() => target, true);
  }

  /** Resolves once nothing is running or queued. */
  async settle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.tail;
      await seen;
    } while (seen !== this.tail);
  }

  /** The clock moved: the timer's real delay to the earliest job changed. */
  clockMoved(): void {
    this.armedFor = Number.NaN;
    this.arm();
  }

  /** Stops the timer and waits for the running job; nothing runs afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.settle();
  }

  private async runThrough(limit: () => number, pin: boolean): Promise<void> {
    let at = this.clock.now().getTime();
    try {
      for (;;) {
        if (this.closed) return;
        const batch = this.takeBatch(limit(), pin);
        if (batch.length === 0) return;
        if (pin) {
          at = Math.max(at, batch[batch.length - 1]!.due);
          this.clock.pin(at);
        }
        // Started in due order, so each job's synchronous part (an email's id, say) keeps that order.
        await Promise.all(batch.map((entry) => this.runOne(entry)));
      }
    } finally {
      if (pin) this.clock.unpin();
      this.arm();
    }
  }

  /**
   * The next jobs to run together: due by `limit`, at most BATCH of them, and when the clock is
   * pinned, due within the same second (the wire's resolution), the clock pinned at the latest
   * of them. Running them together lets their writes share one flush.
   */
  private takeBatch(limit: number, pin: boolean): Entry[] {
    const batch: Entry[] = [];
    let second: number | null = null;
    while (batch.length < BATCH) {
      const next = this.peek();
      if (!next || next.due > limit) break;
      const nextSecond = Math.floor(next.due / 1000);
      if (pin && second !== null && nextSecond !== second) break;
      second = nextSecond;
      pop(this.heap);
      this.live.delete(id(next.kind, next.key));
      batch.push(next);
    }
    return batch;
  }

  private async runOne(entry: Entry): Promise<void> {
    try {
      await this.handlers.get(entry.kind)?.(entry.key);
    } catch (error) {
      this.onError(`scheduled ${entry.kind} job ${entry.key} failed`, error);
    }
  }

  /** Drops the entries left behind by rescheduling and cancelling, once they outnumber the live ones. */
  private compact(): void {
    const live = [...this.live.values()].sort((a, b) => (before(a, b) ? -1 : 1));
    // A sorted array is a valid heap.
    this.heap.length = 0;
    for (const entry of live) this.heap.push(entry);
  }

  /** The earliest live entry; stale ones (rescheduled or cancelled) are dropped on the way. */
  private peek(): Entry | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top || this.live.get(id(top.kind, top.key)) === top) return top;
      pop(this.heap);
    }
  }

  private kick(): void {
    if (this.drainQueued || this.closed) return;
    this.drainQueued = true;
    this.runDue().catch((error: unknown) => this.onError('scheduled run failed', error));
  }

  private arm(): void {
    if (this.closed) return;
    const due = this.peek()?.due ?? Infinity;
    if (due === this.armedFor) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = due;
    if (due === Infinity) return;
    const delay = Math.min(Math.max(0, due - this.clock.now().getTime()), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.armedFor = Number.NaN;
      this.runDue().catch((error: unknown) => this.onError('scheduled run failed', error));
    }, delay);
    this.timer.unref();
  }
}

function id(kind: JobKind, key: number): string {
  return `${kind}:${key}`;
}

function before(a: Entry, b: Entry): boolean {
  return a.due < b.due || (a.due === b.due && a.order < b.order);
}

function push(heap: Entry[], entry: Entry): void {
  heap.push(entry);
  let at = heap.length - 1;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!before(heap[at]!, heap[parent]!)) break;
    [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
    at = parent;
  }
}

function pop(heap: Entry[]): Entry | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || !last) return top;
  heap[0] = last;
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    const right = left + 1;
    let best = at;
    if (left < heap.length && before(heap[left]!, heap[best]!)) best = left;
    if (right < heap.length && before(heap[right]!, heap[best]!)) best = right;
    if (best === at) return top;
    [heap[at], heap[best]] = [heap[best]!, heap[at]!];
    at = best;
  }
}
