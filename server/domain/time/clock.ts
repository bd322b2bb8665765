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

/** The UTC calendar day of an instant, e.g. "2026-02-17". */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
