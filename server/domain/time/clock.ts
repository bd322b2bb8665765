/**
 * The sandbox clock: the one source of time for the domain (daily-limit day, timestamps,
 * delivery delays, flow schedules). It follows real time, shifted by an offset that the
 * sandbox API moves (advance, set, reset); nothing in the domain calls Date.now() directly.
 */
export interface Clock {
  now(): Date;
}

/** What the sandbox API reports about the clock (and `clock.changed` carries). */
export interface ClockState {
  now: Date;
  /** Milliseconds ahead of real time. */
  offsetMs: number;
  /** True when the clock follows real time (no offset). */
  realTime: boolean;
}

export class SandboxClock implements Clock {
  private offsetMs = 0;
  private pinnedMs: number | null = null;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): Date {
    return new Date(this.pinnedMs ?? this.realNow() + this.offsetMs);
  }

  /** Milliseconds the sandbox clock is ahead of real time. */
  get offset(): number {
    return this.offsetMs;
  }

  /** Shifts the clock so that it reads `at` now, and keeps ticking from there. */
  moveTo(at: number): void {
    this.offsetMs = at - this.realNow();
  }

  /** Restores a stored offset (start-up); 0 is real time. */
  setOffset(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }

  /**
   * Holds the clock still at `at` while an advance runs what fell due then, so every step and
   * timestamp of that moment reads its due instant exactly; `unpin` lets it tick again.
   */
  pin(at: number): void {
    this.pinnedMs = at;
  }

  unpin(): void {
    this.pinnedMs = null;
  }
}

const UNITS: ReadonlyArray<readonly [number, string]> = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/**
 * How far the sandbox clock is from real time, in words (issue 27: an offset that outlives
 * restarts must not go unnoticed): "real time", "12 days 3 hours ahead of real time".
 */
export function offsetText(offsetMs: number): string {
  if (offsetMs === 0) return 'real time';
  let rest = Math.abs(offsetMs);
  const parts: string[] = [];
  for (const [size, name] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
    rest -= n * size;
  }
  return `${parts.join(' ') || 'less than a second'} ${offsetMs > 0 ? 'ahead of' : 'behind'} real time`;
}

/** The UTC calendar day of an instant, e.g. "2026-02-17". */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
